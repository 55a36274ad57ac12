"""``memeval bench runtimes``: its options are checked before any server starts."""

from __future__ import annotations

import argparse

import pytest

from evals.cli.main import main
from evals.errors import UsageError


@pytest.mark.parametrize("options", [["--runtimes", " , "], ["--tokens", "0"], ["--repeats", "0"]])
def test_nothing_to_measure_is_a_usage_error_before_any_server(options: list[str]) -> None:
    from evals.bench import runtimes

    parser = argparse.ArgumentParser()
    runtimes.add_arguments(parser)
    with pytest.raises(UsageError, match="--runtimes, --tokens and --repeats"):
        runtimes.run(parser.parse_args(options))


def test_the_benchmark_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "runtimes" in capsys.readouterr().out


def test_every_request_has_its_own_first_line_so_prefill_is_measured_whole() -> None:
    from evals.bench.runtimes import _prompt

    first, second = _prompt(0, 120), _prompt(1, 120)
    assert first.splitlines()[0] != second.splitlines()[0]  # no shared prefix to cache
    assert first.splitlines()[1:] == second.splitlines()[1:]  # the same work otherwise
    assert len(first.split()) > 1_000  # a recorded chat turn's length, not a 100-token probe
