"""The experiment grid: what one cell of work is, the default suite, the local models.

A :class:`Cell` is (scenario, model, policy, variant, repeat); every path of a cell (run
directory, cassette) is computed by it. ``cell.py`` is standard library only: the noxfile
loads it by path, without importing the harness.
"""

from __future__ import annotations

from evals.grid.cell import (
    DEFAULT_CASSETTE_ROOT,
    DEFAULT_SUITE,
    Cell,
    SuiteCell,
)
from evals.grid.local_model import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_MODELS,
    MODEL_FILE,
    MODEL_NAME,
    MODEL_SHA256,
    MODEL_SIZE,
    PART_COUNT,
    PART_VERSION,
    LocalModel,
    assemble_model,
    cache_dir,
    part_path,
    part_requirements,
)

__all__ = [
    "DEFAULT_CASSETTE_ROOT",
    "DEFAULT_LOCAL_MODEL",
    "DEFAULT_SUITE",
    "LOCAL_MODELS",
    "MODEL_FILE",
    "MODEL_NAME",
    "MODEL_SHA256",
    "MODEL_SIZE",
    "PART_COUNT",
    "PART_VERSION",
    "Cell",
    "LocalModel",
    "SuiteCell",
    "assemble_model",
    "cache_dir",
    "part_path",
    "part_requirements",
]
