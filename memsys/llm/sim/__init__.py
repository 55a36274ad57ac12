"""Simulated models (``sim/...``): deterministic, rule-based, labelled simulated everywhere.

They answer every role the memory system asks of a model, so scenarios run offline and the
scores have two known reference points.
"""

from __future__ import annotations

from memsys.errors import UnknownNameError
from memsys.llm.base import LLMClient
from memsys.llm.registry import register_provider
from memsys.llm.sim._base import SimModel
from memsys.llm.sim.careful import CarefulSim
from memsys.llm.sim.naive import NaiveSim

__all__ = ["SIM_MODELS", "CarefulSim", "NaiveSim", "SimModel", "make_sim"]

SIM_MODELS: dict[str, type[SimModel]] = {"naive": NaiveSim, "careful": CarefulSim}


@register_provider("sim")
def make_sim(model: str, **options: object) -> LLMClient:
    """``sim/naive`` or ``sim/careful``."""
    try:
        return SIM_MODELS[model](f"sim/{model}")
    except KeyError:
        raise UnknownNameError(
            "simulated model", f"sim/{model}", [f"sim/{m}" for m in SIM_MODELS]
        ) from None
