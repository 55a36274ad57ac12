"""Simulated models (``sim/...``): deterministic, rule-based, labelled simulated everywhere.

They answer every role the memory system asks of a model, so scenarios run offline and the
scores have two known reference points. Each registers itself in :data:`SIM_MODELS` where it
is defined; ``make_client("sim/careful")`` finds it through the ``sim/`` provider.
"""

from __future__ import annotations

from memsys.llm.sim._base import SIM_MODELS, SimModel
from memsys.llm.sim.careful import CarefulSim
from memsys.llm.sim.naive import NaiveSim

__all__ = ["SIM_MODELS", "CarefulSim", "NaiveSim", "SimModel"]
