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
