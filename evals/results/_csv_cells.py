"""The one writer of CSV text: every text cell neutralised against spreadsheet formulas.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab
or a carriage return) as a formula: a variant file named ``=HYPERLINK(...).toml`` put a live
link into ``results.csv``. Whatever column a text lands in (header included), one that
starts so gets a leading ``'``, which spreadsheets show as text. Numbers are left alone, so a
negative score stays a number. Every text cell is quoted: Python's CSV writer leaves a lone
carriage return unquoted, which splits the row in two for any reader.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence

__all__ = ["FORMULA_STARTS", "csv_text", "neutral_cell"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a text cell may not start with (OWASP's list for CSV injection)."""


def neutral_cell(value: object) -> object:
    """``value``, with a text that a spreadsheet would run as a formula made plain text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(rows: Sequence[Mapping[str, object]]) -> str:
    """The CSV of ``rows`` (columns in first-seen order, a missing cell empty), every text
    cell and column name through :func:`neutral_cell`."""
    import pandas as pd  # heavy: only when a CSV is written

    frame = pd.DataFrame(
        [{str(neutral_cell(k)): neutral_cell(v) for k, v in r.items()} for r in rows]
    )
    return str(frame.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC))
