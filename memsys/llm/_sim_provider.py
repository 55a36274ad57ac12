"""The ``sim/`` provider, registered with the others when :mod:`memsys.llm` is imported.

The simulated models themselves register in :data:`memsys.llm.sim.SIM_MODELS` where they are
defined; they are imported when the first one is built, because they read the memory
system's prompts and headers, whose modules import this package.
"""

from __future__ import annotations

from memsys.llm.base import LLMClient, ModelKind
from memsys.llm.registry import register_provider

__all__ = ["make_sim"]


@register_provider("sim", ModelKind.SIMULATED)
def make_sim(model: str, **options: object) -> LLMClient:
    """``sim/naive`` or ``sim/careful`` (options are ignored: a sim model has none).

    Raises:
        UnknownNameError: no simulated model of that name (the message lists them).
    """
    from memsys.llm.sim import SIM_MODELS

    name = f"sim/{model}"
    return SIM_MODELS.get(name)(name)
