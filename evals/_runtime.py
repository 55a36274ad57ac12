"""The memory system wired together for one scenario run (the app's DI module)."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path

from evals._embed_cache import CachedEmbedder
from memsys.agent import AssistantLoop
from memsys.clock import ManualClock
from memsys.compaction import MemoryCompactor
from memsys.dailylog import DailyLogWriter
from memsys.events import Emit
from memsys.injector import MemoryInjector
from memsys.llm import LLMClient, SessionModel
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, WritePolicy, make_policy
from memsys.search.embedder import Embedder, EmbedderUnavailable, default_embedder
from memsys.search.engine import MemorySearch
from memsys.search.scoring import SearchConfig
from memsys.sessions import SessionStore
from memsys.tools import load_variant
from memsys.tools.search_tool import SearchMemoryTool
from memsys.triggers import DeferredRunner, MemoryTriggerManager, TriggerPrefs, TriggerWiring

__all__ = ["BASE_PROMPT", "Runtime", "RuntimeConfig", "build_runtime", "shared_embedder"]

log = logging.getLogger(__name__)

BASE_PROMPT = (
    "You are OneClaw, a helpful personal assistant. You have a long-term memory: its "
    "content is below, and you can change it with the memory tools."
)


@functools.cache
def shared_embedder() -> Embedder | None:
    """The process-wide MiniLM embedder, or None (BM25-only) when it cannot load; decided
    once per process, so the fallback is logged once. Repeated texts are embedded once
    (:class:`~evals._embed_cache.CachedEmbedder`)."""
    try:
        embedder = default_embedder()
        embedder.embed(["warm-up"])
    except EmbedderUnavailable as exc:
        log.warning("embedding model unavailable, search is BM25-only: %s", exc)
        return None
    return CachedEmbedder(embedder)


@dataclass
class Runtime:
    """Every component of one run."""

    clock: ManualClock
    manager: MemoryManager
    client: SessionModel
    policy: WritePolicy
    search: MemorySearch
    sessions: SessionStore
    runner: DeferredRunner
    triggers: MemoryTriggerManager
    injector: MemoryInjector
    loop: AssistantLoop
    base_prompt: str = BASE_PROMPT
    """The chat system prompt's memory instructions: the variant's, else :data:`BASE_PROMPT`."""


@dataclass(frozen=True)
class RuntimeConfig:
    """What one run's memory system is built from."""

    memory_dir: Path
    """The memory directory (MEMORY.md, daily logs, backups, index)."""
    clock: ManualClock
    """The simulated clock the engine moves."""
    client: LLMClient
    """The model under test (chat, daily logs, compaction, decisions)."""
    policy: str
    """Write policy name."""
    variant: str
    """Tool-description variant: a shipped name or a ``.toml`` path."""
    embedder: Embedder | None
    """Embedder for search and similarity, or None (BM25 and word overlap only)."""
    search: SearchConfig = field(default_factory=SearchConfig)
    """How search ranks (decay form, half-life, floor): the scenario's ``search`` setting."""


def build_runtime(config: RuntimeConfig, emit: Emit) -> Runtime:
    """Wire the memory system for one run; what it does is reported to ``emit``."""
    clock, memory_dir, embedder = config.clock, config.memory_dir, config.embedder
    manager = MemoryManager(memory_dir, clock)
    search = MemorySearch(memory_dir, embedder, config.search)
    manager.add_listener(search)
    # One session model for every caller, so a model switch reaches them all.
    client = SessionModel(config.client)
    variant = load_variant(config.variant)
    embed = embedder.embed if embedder is not None else None
    policy = make_policy(config.policy, PolicyContext(manager, client, variant, embed, emit))
    sessions = SessionStore()
    runner = DeferredRunner()
    triggers = MemoryTriggerManager(
        TriggerWiring(
            sessions=sessions,
            writer=DailyLogWriter(manager, client, policy, variant.prompts.daily_summary),
            policy=policy,
            compactor=MemoryCompactor(manager, client, variant.prompts.compaction),
            clock=clock,
            runner=runner,
            prefs=TriggerPrefs(memory_dir),
            emit=emit,
        )
    )
    tools = [
        *policy.tools(),
        SearchMemoryTool(search, variant, lambda: clock.now().date(), policy.recalled),
    ]
    return Runtime(
        clock,
        manager,
        client,
        policy,
        search,
        sessions,
        runner,
        triggers,
        MemoryInjector(manager, search, recall=policy.recall_source()),
        AssistantLoop(client, tools),
        variant.prompts.chat_system or BASE_PROMPT,
    )
