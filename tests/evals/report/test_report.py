"""The HTML report's content: kinds, summary, highlighted memory, diff."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from evals.report import render_report, write_report
from evals.results import RunResult, score_run_dir
from memsys.search.embedder import HashEmbedder
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace

_CACHE: dict[int, list[RunResult]] = {}


def results_of(repeats: int = 1, tmp: Path | None = None) -> list[RunResult]:
    """careful/guardrails (good memory) and naive/append (noisy memory), ``repeats`` each."""
    if repeats in _CACHE:
        return _CACHE[repeats]
    import tempfile

    root = tmp or Path(tempfile.mkdtemp())
    for repeat in range(1, repeats + 1):
        for model, policy, memory in (
            ("sim/careful", "guardrails", GOOD_MEMORY),
            ("sim/naive", "append", NOISY_MEMORY if repeat % 2 else NOISY_MEMORY + "- extra\n"),
        ):
            write_trace(
                root / model.replace("/", "-") / policy / f"repeat-{repeat}",
                memory,
                model=model,
                policy=policy,
                repeat=repeat,
                records=standard_records(memory),
            )
    _CACHE[repeats] = score_run_dir(root, HashEmbedder())
    return _CACHE[repeats]


def test_report_labels_kinds_and_has_every_section(tmp_path: Path) -> None:
    results = results_of(repeats=2)
    html = write_report(results, tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.count('<span class="kind kind-simulated">simulated</span>') >= 2
    assert "model kind: simulated" in html
    assert "± " in html and "(n=2)" in html  # repeats show a CI
    assert len(re.findall(r'<img alt="[^"]+" src="data:image/png;base64,', html)) >= 10
    assert "Memory size per day" in html and "MEMORY.md diff" in html
    assert 'class="noise"' in html and 'class="dup"' in html
    assert "missed: The user is allergic to shellfish" in html
    assert "http://" not in html.replace("http://www.w3.org", "")  # self-contained


def test_real_model_kind_is_shown() -> None:
    real = [dataclasses.replace(results_of()[0], model_kind="real")]
    html = render_report(real)
    assert "kind-real" in html and "model kind: real" in html


def test_scorer_settings_are_stated() -> None:
    from evals.scorers import ScorerSettings

    assert "Scorer settings: defaults." in render_report(results_of())
    strict = [
        dataclasses.replace(r, scorer_settings=ScorerSettings(fact_threshold=0.8))
        for r in results_of()
    ]
    assert "Scorer settings: fact_threshold=0.8." in render_report(strict)
