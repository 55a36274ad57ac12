"""The noxfile's record session: a SIGTERM to nox reaches ``memeval record`` as Ctrl-C (so it
stops its model server), and the venv's install is skipped while pyproject.toml is unchanged."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Stands in for `nox -s record`: the noxfile's SIGTERM handler, then nox's own popen running
# a child that, like memeval record, stops its server on SIGTERM (here: writes a file).
NOX = """
import importlib.util, signal, sys
spec = importlib.util.spec_from_file_location("noxfile", {noxfile!r})
noxfile = importlib.util.module_from_spec(spec); spec.loader.exec_module(noxfile)
signal.signal(signal.SIGTERM, noxfile._interrupt)
from nox.popen import popen
child = (
    "import signal, sys, time, pathlib\\n"
    "def stop(*_):\\n"
    "    pathlib.Path({stopped!r}).write_text('server stopped')\\n"
    "    sys.exit(0)\\n"
    "signal.signal(signal.SIGTERM, stop)\\n"
    "pathlib.Path({ready!r}).write_text('up')\\n"
    "time.sleep(60)\\n"
)
popen([sys.executable, "-c", child], interrupt_timeout=1.0, terminate_timeout=30.0)
"""


def test_a_sigterm_to_nox_stops_the_recorder_through_its_ctrl_c_path(tmp_path: Path) -> None:
    ready, stopped = tmp_path / "ready", tmp_path / "stopped"
    script = NOX.format(noxfile=str(ROOT / "noxfile.py"), stopped=str(stopped), ready=str(ready))
    nox = subprocess.Popen([sys.executable, "-c", script])
    for _ in range(200):
        if ready.exists():
            break
        time.sleep(0.05)
    assert ready.exists(), "the stand-in recorder never started"
    nox.send_signal(signal.SIGTERM)
    nox.wait(timeout=60)
    assert stopped.read_text() == "server stopped"


def test_the_record_session_reuses_its_venv_and_installs_once() -> None:
    text = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert '@nox.session(python="3.11", reuse_venv=True)\ndef record(' in text
    assert '_install_once(session, ".[record]")' in text
