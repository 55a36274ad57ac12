"""``memeval memory search`` and ``memeval memory index``: hybrid search from the shell.

``search`` prints ranked hits with their score parts; ``--queries FILE.jsonl`` runs many
queries in one process (the embedding model loads once) and prints one JSON line per query,
so a query set can be evaluated offline. Each input line is a JSON object::

    {"query": "what did we decide about the database?", "id": "q1", "k": 5, "today": "2026-03-02"}

``query`` is required; ``id`` (any JSON value), ``k`` and ``today`` are optional.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from evals.cli._common import EXIT_OK, cli_clock
from evals.errors import MemoryDirError, QueryFileError, UsageError
from memsys.safe_io import ParseLimitError, ParseLimits, parse_json, read_input_text
from memsys.search.config import DecayForm, SearchConfig

if TYPE_CHECKING:  # the search itself (numpy) loads when a search runs (issue 29)
    from memsys.search import MemorySearch, SearchHit

__all__ = [
    "QueryFileError",
    "add_ranking_options",
    "hit_to_json",
    "register_memory_commands",
    "search_config",
]


@dataclass(frozen=True)
class _Query:
    query: str
    id: object
    k: int | None
    today: date | None


def hit_to_json(hit: SearchHit) -> dict[str, object]:
    """A hit as a JSON object: source, date, line span, text, score and score parts."""
    parts = hit.parts
    return {
        "source": hit.source,
        "date": hit.date.isoformat() if hit.date else None,
        "line_start": hit.line_start,
        "line_end": hit.line_end,
        "text": hit.text,
        "score": round(hit.score, 6),
        "parts": {
            "bm25_raw": round(parts.bm25_raw, 6),
            "bm25_norm": round(parts.bm25_norm, 6),
            "cosine": None if parts.cosine is None else round(parts.cosine, 6),
            "fused": round(parts.fused, 6),
            "decay": round(parts.decay, 6),
            "weighted": round(parts.weighted, 6),
            "final": round(parts.final, 6),
            "superseded": parts.superseded_by is not None,
        },
    }


_MAX_QUERY_FILE_BYTES = 8 << 20
_QUERY_LIMITS = ParseLimits(max_bytes=_MAX_QUERY_FILE_BYTES, max_nodes=10_000, max_depth=4)
"""A query line is one flat object (query, id, k, today)."""


def _read_queries(path: Path) -> list[_Query]:
    try:
        lines = read_input_text(path, _MAX_QUERY_FILE_BYTES).splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryFileError(path, 0, f"cannot be read ({exc})") from exc
    queries = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = parse_json(line, _QUERY_LIMITS)
        except ParseLimitError as exc:
            raise QueryFileError(path, number, f"refused: {exc.problem}") from None
        except json.JSONDecodeError as exc:
            raise QueryFileError(path, number, f"invalid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise QueryFileError(path, number, f"expected an object, got {type(data).__name__}")
        text = data.get("query")
        if not isinstance(text, str) or not text.strip():
            raise QueryFileError(path, number, "'query' must be a non-empty string")
        k = data.get("k")
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
            raise QueryFileError(path, number, f"'k' must be a positive integer, got {k!r}")
        day = data.get("today")
        try:
            today = date.fromisoformat(day) if day is not None else None
        except (TypeError, ValueError):
            raise QueryFileError(path, number, f"'today' must be YYYY-MM-DD, got {day!r}") from None
        queries.append(_Query(text, data.get("id"), k, today))
    return queries


def search_config(args: argparse.Namespace) -> SearchConfig:
    """The :class:`SearchConfig` of the ranking options :func:`add_ranking_options` added."""
    half_life = None if args.no_decay else args.half_life
    return SearchConfig(
        half_life_days=half_life,
        decay_form=DecayForm(args.decay_form),
        decay_floor=args.decay_floor,
        top_k=getattr(args, "k", SearchConfig.top_k),
    )


def _searcher(args: argparse.Namespace, config: SearchConfig | None = None) -> MemorySearch:
    memory_dir = Path(args.dir)
    if not memory_dir.is_dir():
        raise MemoryDirError(memory_dir)
    from memsys.app import open_search  # the whole system: only when a search runs
    from memsys.search import default_embedder

    embedder = None if args.bm25_only else default_embedder()

    return open_search(memory_dir, embedder, config or SearchConfig())


def _print_hits(query: str, hits: list[SearchHit], search: MemorySearch) -> None:
    mode = "hybrid" if search.vectors_enabled else "BM25 only"
    print(f"{len(hits)} hit(s) for {query!r} ({mode})")
    for rank, hit in enumerate(hits, start=1):
        when = f"  ({hit.date.isoformat()})" if hit.date else ""
        print(f"{rank:>2}. {hit.score:.3f}  {hit.label}{when}")
        print(f"    {hit.text}")
        p = hit.parts
        cosine = "n/a" if p.cosine is None else f"{p.cosine:.3f}"
        print(
            f"    bm25 {p.bm25_raw:.3f} (norm {p.bm25_norm:.3f})  cosine {cosine}  "
            f"fused {p.fused:.3f}  decay {p.decay:.3f}"
            + ("  (superseded: listed under a newer hit)" if p.superseded_by is not None else "")
        )


def _search(args: argparse.Namespace) -> int:
    today = date.fromisoformat(args.today) if args.today else cli_clock().now().date()
    if args.queries is not None:
        queries = _read_queries(Path(args.queries))  # all validated before the first search
    elif args.query is not None:
        queries = [_Query(args.query, None, None, None)]
    else:
        raise UsageError("give a QUERY or --queries FILE.jsonl")
    search = _searcher(args, search_config(args))
    for item in queries:
        hits = search.search(item.query, item.today or today, item.k)
        if args.json or args.queries is not None:
            record: dict[str, object] = {"query": item.query}
            if item.id is not None:
                record["id"] = item.id
            record["mode"] = "hybrid" if search.vectors_enabled else "bm25"
            record["hits"] = [hit_to_json(h) for h in hits]
            print(json.dumps(record, ensure_ascii=False), flush=True)
        else:
            _print_hits(item.query, hits, search)
    return EXIT_OK


def _index(args: argparse.Namespace) -> int:
    search = _searcher(args)
    count = search.rebuild_index() if args.rebuild else search.refresh()
    mode = "with embeddings" if search.vectors_enabled else "BM25 only (no embeddings)"
    action = "rebuilt" if args.rebuild else "up to date"
    print(f"index {action}: {count} chunks, {mode}, at {search.index_path}")
    return EXIT_OK


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="memory directory (holds MEMORY.md)")
    parser.add_argument(
        "--bm25-only", action="store_true", help="skip the embedding model (keyword search only)"
    )


def add_ranking_options(parser: argparse.ArgumentParser) -> None:
    """``--half-life``, ``--decay-form``, ``--decay-floor`` and ``--no-decay``."""
    default = SearchConfig()
    parser.add_argument(
        "--half-life",
        type=float,
        default=default.half_life_days,
        help=f"days until the recency term halves (default {default.half_life_days:g})",
    )
    parser.add_argument(
        "--decay-form",
        choices=[f.value for f in DecayForm],
        default=default.decay_form.value,
        help=f"shape of the recency term (default {default.decay_form.value})",
    )
    parser.add_argument(
        "--decay-floor",
        type=float,
        default=default.decay_floor,
        help="lowest decay factor; 0 with --decay-form exponential --half-life 30 is the "
        f"pre-issue-13 rule (default {default.decay_floor:g})",
    )
    parser.add_argument("--no-decay", action="store_true", help="turn time decay off")


def register_memory_commands(msub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``search`` and ``index`` to the ``memory`` subcommands."""
    search = msub.add_parser(
        "search",
        help="hybrid search (BM25 + embeddings, time decay) with score parts",
        description="Search MEMORY.md and the daily logs. Exit 0 on success, 2 on a usage error.",
    )
    _common(search)
    add_ranking_options(search)
    search.add_argument("-k", type=int, default=5, help="results per query (default 5)")
    search.add_argument("query", metavar="QUERY", nargs="?", help="what to look for")
    search.add_argument("--json", action="store_true", help="print one JSON object per query")
    search.add_argument(
        "--queries",
        metavar="FILE.jsonl",
        help='run every {"query": ...} line of FILE in one process; prints JSON lines',
    )
    search.add_argument("--today", help="the current day for decay (default: today)")
    search.set_defaults(handler=_search)
    index = msub.add_parser(
        "index",
        help="bring the search index up to date, or --rebuild it",
        description="Index MEMORY.md and daily/*.md into DIR/.index/memory_index.sqlite.",
    )
    _common(index)
    index.add_argument("--rebuild", action="store_true", help="drop the index and rebuild it")
    index.set_defaults(handler=_index)
