"""The README's issue-38 table (``memeval bench reader --agreement --write-readme``): each
figure beside the labellers' own agreement, from the held files to the files today's scorer
had not seen, by writer."""

from __future__ import annotations

from evals.bench._reader_agreement import Grading
from evals.bench._reader_summary import summary_table
from evals.bench._reader_unseen import FrozenBatch

_GRADES = {f"{n}-x.md": g for n, g in enumerate([0.1, 0.5, 0.9, 0.2, 0.4, 0.6, 0.8], 1)}


def _batch(names: list[str], grades: dict[str, float]) -> FrozenBatch:
    numbers = [int(n.split("-")[0]) for n in names]
    gradings = {n: Grading(grades[n], {4: "keep"}) for n in names}
    return FrozenBatch(min(numbers), max(numbers), "a" * 40, "test", gradings)


def _row(table: str, start: str) -> list[str]:
    row = next(r for r in table.splitlines() if r.startswith(start))
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_each_figure_sits_under_the_labellers_own_agreement_on_the_same_files() -> None:
    labels = {n: Grading(g, {4: "keep"}) for n, g in _GRADES.items()}
    older, newer = ["1-x.md", "2-x.md", "3-x.md"], ["4-x.md", "5-x.md", "6-x.md", "7-x.md"]
    # When the older batch was frozen the scorer ranked it backwards; a later rule fixed
    # that, so today's scorer has not seen only the newer batch (graded as then).
    backwards = {**_GRADES, "1-x.md": 0.9, "3-x.md": 0.1}
    batches = [_batch(older, backwards), _batch(newer, _GRADES)]
    writers = {"4-x.md": "a", "5-x.md": "a", "6-x.md": "b", "7-x.md": "b"}
    table = summary_table(labels, dict(labels), labels, batches, writers)
    assert _row(table, "| 7 held aside | first labeller") == [
        "7 held aside",
        "first labeller - second labeller",
        "1.000",
        "0.000",
        "100.0%",
        "",
    ]
    assert _row(table, "| the same 7 | today's scorer")[2:] == [
        "1.000 / 1.000",
        "0.000 / 0.000",
        "100.0% / 100.0%",
        "0.000 (0.00 to 0.00) / 0.000 (0.00 to 0.00)",
    ]
    then = _row(table, "| the same 7 | the scorer as it stood when each batch was frozen")
    assert float(then[2].split(" / ")[0]) < 1.0 and then[3] == "0.229 / 0.229"
    assert "| 4 of them (batches 4-7), which no rule since has changed |" in table
    unseen = _row(table, "| the same 4 | **today's scorer, on files it had not seen**")
    assert unseen[2] == "1.000 / 1.000"
    resampled = _row(table, "| the same 4, its 2 writers resampled")
    assert resampled[5] == "0.000 (0.00 to 0.00) / 0.000 (0.00 to 0.00)"
    # Writers a and b tie at two files: the first by name is left out; b's two remain,
    # too few for an interval.
    assert _row(table, "| 2 of them, without the largest writer (a, 2 files)")[4] == "100.0%"
    assert _row(table, "| the same 2 | today's scorer")[5] == "n/a (under 4 files)"


def test_without_fresh_batches_or_a_second_writer_the_table_says_only_what_it_has() -> None:
    labels = {n: Grading(g, {4: "keep"}) for n, g in _GRADES.items()}
    alone = summary_table(labels, dict(labels), labels, [], {})
    assert len(alone.splitlines()) == 4  # header, rule, the held files' two rows
    one_writer = summary_table(labels, dict(labels), labels, [_batch(list(_GRADES), _GRADES)], {})
    assert "writers resampled" not in one_writer and "without the largest" not in one_writer
    assert "| 7 of them (batches 1-7), which no rule since has changed |" in one_writer
    # A rule since changed a grade of the only batch: no file is unseen, and the table says so.
    changed = {**labels, "1-x.md": Grading(0.15, {4: "keep"})}
    none_yet = summary_table(labels, dict(labels), changed, [_batch(list(_GRADES), _GRADES)], {})
    assert "| none yet | today's scorer has changed" in none_yet
    assert "had not seen" not in none_yet
