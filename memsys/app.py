"""The app: the memory system assembled from its parts, and the app's message conventions.

:func:`build_runtime` wires config, manager, model session, write policy, search, session
store, triggers, injector and the assistant loop for one memory directory, from the same
parts the model-less callers use: :func:`open_memory`, :func:`open_search`,
:func:`memory_tool` and :class:`~memsys.policies.PolicyContext`. The variant is applied in
one place: it describes every tool's code (:meth:`~memsys.tools.Variant.describe`) and gives
the background prompts; no tool or policy holds it. The harness's engine (``evals.run.engine``),
``memeval memory`` and the benches build theirs here.

What the app itself writes into a conversation is defined once, in the leaf module
:mod:`memsys.app_messages` (re-exported here): the simulated models (``memsys.llm.sim``) read
the same prefixes from there without importing the app.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memsys.agent import AssistantLoop
from memsys.app_messages import (
    APP_NOTICE_PREFIX,
    BASE_PROMPT,
    SCREENSHOT_PREFIX,
    model_switch_notice,
    user_message,
)
from memsys.clock import Clock, ManualClock
from memsys.compaction import MemoryCompactor
from memsys.dailylog import DailyLogWriter
from memsys.events import Emit
from memsys.injector import MemoryInjector
from memsys.llm import LLMClient, SessionModel
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, WritePolicy, make_policy
from memsys.search.config import SearchConfig
from memsys.search.embedder import Embedder
from memsys.search.engine import MemorySearch
from memsys.sessions import SessionStore
from memsys.tools import Variant, load_variant
from memsys.tools.memory_tools import memory_tool
from memsys.tools.search_tool import SearchMemoryTool
from memsys.triggers import DeferredRunner, MemoryTriggerManager, TriggerPrefs, TriggerWiring

__all__ = [
    "APP_NOTICE_PREFIX",
    "BASE_PROMPT",
    "SCREENSHOT_PREFIX",
    "Runtime",
    "RuntimeConfig",
    "build_runtime",
    "memory_tool",
    "model_switch_notice",
    "open_memory",
    "open_search",
    "user_message",
]


def open_memory(memory_dir: Path, clock: Clock) -> MemoryManager:
    """A memory directory's manager: the one entry point for changes (no model, no search)."""
    return MemoryManager(memory_dir, clock)


def open_search(
    memory_dir: Path, embedder: Embedder | None, config: SearchConfig | None = None
) -> MemorySearch:
    """Search over a memory directory (hybrid, or BM25 only when ``embedder`` is None)."""
    return MemorySearch(memory_dir, embedder, config if config is not None else SearchConfig())


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
    variant: str | Variant
    """Tool-description variant: loaded (the run's one copy), or a shipped name or a ``.toml``
    path to load."""
    embedder: Embedder | None
    """Embedder for search and similarity, or None (BM25 and word overlap only)."""
    search: SearchConfig = field(default_factory=SearchConfig)
    """How search ranks (decay form, half-life, floor): the scenario's ``search`` setting."""


def build_runtime(config: RuntimeConfig, emit: Emit) -> Runtime:
    """Wire the memory system for one run; what it does is reported to ``emit``."""
    clock, memory_dir, embedder = config.clock, config.memory_dir, config.embedder
    manager = open_memory(memory_dir, clock)
    search = open_search(memory_dir, embedder, config.search)
    manager.add_listener(search)
    # One session model for every caller, so a model switch reaches them all.
    client = SessionModel(config.client)
    embed = embedder.embed if embedder is not None else None
    variant = (
        config.variant if isinstance(config.variant, Variant) else load_variant(config.variant)
    )
    policy = make_policy(
        config.policy,
        PolicyContext(manager, client, embed, emit, variant.prompts.decision_system),
    )
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
    actions = [
        *policy.tools(),
        SearchMemoryTool(search, lambda: clock.now().date(), policy.recalled),
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
        AssistantLoop(client, [variant.describe(action) for action in actions]),
        variant.prompts.chat_system or BASE_PROMPT,
    )
