"""The pieces of a scenario file: expectations and what events carry (see :mod:`evals.scenario`;
the events themselves are in :mod:`evals.scenario.events`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memsys.errors import SearchConfigError
from memsys.search.config import DecayForm, SearchConfig
from memsys.sections import STANDARD_SECTIONS

__all__ = [
    "BackupExpect",
    "Burst",
    "CheckpointSpec",
    "CompactSpec",
    "Contradiction",
    "ContradictionKind",
    "During",
    "Expectations",
    "FactSpec",
    "ForbidSpec",
    "ManualEdit",
    "ModelSwitch",
    "PreferSpec",
    "ScriptedDecisionSpec",
    "SearchProbeSpec",
    "SearchSettings",
    "StrictModel",
    "TurnKind",
]


class StrictModel(BaseModel):
    """Frozen, and unknown keys are errors."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# -- expectations (scored by evals/scorers) -------------------------------------------------


class FactSpec(StrictModel):
    """A fact matched against MEMORY.md entries: by embedding similarity, or by keywords."""

    fact: str
    """The fact in plain words."""
    keywords: list[list[str]] = Field(default_factory=list)
    """Alternative match: every group must have one keyword (case-insensitive substring) in
    the same entry, e.g. ``[["postgres"], ["16"]]``."""
    section: list[str] | None = None
    """Sections the fact belongs in (``remember`` only), e.g. ``[Preferences]``; scored by
    ``wrong_section``. None: any section."""

    @model_validator(mode="after")
    def _known_sections(self) -> FactSpec:
        unknown = [s for s in self.section or [] if s not in STANDARD_SECTIONS]
        if unknown:
            raise ValueError(
                f"unknown section {unknown[0]!r}; allowed: {', '.join(STANDARD_SECTIONS)}"
            )
        return self


class ForbidSpec(FactSpec):
    """Something that must not be in MEMORY.md."""

    kind: Literal["model_switch", "screenshot", "transient", "other"] = "other"
    """What sort of noise it is (reported per kind)."""


ContradictionKind = Literal[
    "preference_flip",
    "job_change",
    "move",
    "negation",
    "partial_update",
    "assistant_correction",
    "temporal_change",
    "hand_edit",
    "other",
]
"""How the fact came to change (issue 11's list); reported per kind."""


class Contradiction(StrictModel):
    """An updated fact: the stale version must be gone, the current one present."""

    stale: FactSpec
    current: FactSpec
    kind: ContradictionKind = "other"
    """How the fact changed."""


class BackupExpect(StrictModel):
    """Backup rules checked over the run."""

    max_backups: int = 5
    before_every_compaction: bool = True


class Expectations(StrictModel):
    """What MEMORY.md should look like (at a checkpoint or at the end)."""

    remember: list[FactSpec] = Field(default_factory=list)
    forbid: list[ForbidSpec] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)
    max_duplicates: int | None = None
    max_chars: int | None = None
    must_survive: list[str] = Field(default_factory=list)
    """Exact texts (e.g. "User requested: ...") that must still be present."""
    backups: BackupExpect | None = None


# -- events ---------------------------------------------------------------------------------


class ModelSwitch(StrictModel):
    """The user switches the default model; the app shows it in the conversation."""

    from_model: str = Field(alias="from")
    """Display name of the model switched away from."""
    to_model: str = Field(alias="to")
    """Display name of the model switched to."""
    use: Annotated[str | None, Field(pattern=r"^(run|sim/[a-z0-9-]+)$")] = None
    """When set, the model under test really changes for the rest of the run (chat, daily
    logs, compaction, decisions): a simulated model such as ``sim/naive``, or ``run`` for
    the cell's own model. Unset: only the conversation shows the switch."""


class ManualEdit(StrictModel):
    """A hand edit of MEMORY.md: append a line, replace a text, or set the full text."""

    append: str | None = None
    replace: dict[str, str] | None = None
    text: str | None = None
    line_endings: Literal["lf", "crlf"] = "lf"
    """``crlf``: the editor saves the whole file with Windows line endings."""

    @model_validator(mode="after")
    def _one_form(self) -> ManualEdit:
        forms = [f for f in ("append", "replace", "text") if getattr(self, f) is not None]
        if len(forms) != 1:
            raise ValueError("give exactly one of: append, replace ({old, new}), text")
        if self.replace is not None and set(self.replace) != {"old", "new"}:
            raise ValueError("replace needs exactly the keys old and new")
        return self


class PreferSpec(StrictModel):
    """Two versions of a fact: the hit holding ``current`` must rank above the one holding
    ``stale`` (case-insensitive substrings of the hits' text)."""

    current: str
    stale: str


class SearchProbeSpec(StrictModel):
    query: str
    expect_sources: list[str] = Field(default_factory=list)
    """Sources that should be in the top k: ``MEMORY.md``, ``daily/2026-03-02.md`` or
    ``daily/*`` (any daily log)."""
    k: int = 5
    prefer: PreferSpec | None = None
    """The current version of a fact must outrank its stale version."""


class SearchSettings(StrictModel):
    """How the run's search ranks (FEAT-013 decay); a field left out keeps the default of
    :class:`memsys.search.SearchConfig`. ``decay: false`` turns decay off."""

    decay: bool = True
    half_life_days: Annotated[float, Field(gt=0)] | None = None
    decay_form: DecayForm | None = None
    decay_floor: float | None = None

    def config(self) -> SearchConfig:
        """The :class:`SearchConfig` these settings describe."""
        given = self.model_dump(exclude_none=True, exclude={"decay"})
        if not self.decay:
            given["half_life_days"] = None
        return SearchConfig(**given)

    @model_validator(mode="after")
    def _valid(self) -> SearchSettings:
        try:
            self.config()
        except SearchConfigError as exc:
            raise ValueError(str(exc)) from None
        return self


class Burst(StrictModel):
    """``turns`` exchanges added to the active session without model calls: the volume of
    a long day (FEAT-013's 1,000+ messages), for the daily-log flush to digest."""

    turns: Annotated[int, Field(ge=1, le=5000)]
    user: str
    """User text; ``{n}`` becomes the exchange number."""
    assistant: str = "OK."
    """Assistant reply; ``{n}`` as above."""


class CompactSpec(StrictModel):
    """A manual compaction whose model reply is scripted: the bad compactions of FEAT-049's
    error scenarios (junk, too short, a dropped "User requested:" entry)."""

    reply: str
    """What the compaction model returns, verbatim."""


ID_SLOT = "{id}"


class ScriptedDecisionSpec(StrictModel):
    """The unified pipeline's next decision, answered by the scenario instead of the model:
    a step the lifecycle must contain whatever the model under test decides (seed 004's
    DELETE of a fact that ended). The trace marks the reply as scripted."""

    reply: str
    """The decision reply, verbatim; ``{id}`` becomes the id of the memory ``target`` names."""
    target: str | None = None
    """Words of the memory the reply names: the newest active memory holding them
    (case-insensitive) when the decision is asked for."""

    @model_validator(mode="after")
    def _slot_and_target(self) -> ScriptedDecisionSpec:
        if (ID_SLOT in self.reply) != (self.target is not None):
            raise ValueError(f"give target exactly when the reply has the {ID_SLOT} slot")
        return self


During = Literal["chat", "daily_summary"]
"""A model call in progress: ``manual_edit`` / ``app_background`` with ``during`` happen
while the next call of that purpose is running (after it started, before its result is
written). Compaction is not offered: it holds the MEMORY.md lock, so an edit waits for it."""


class CheckpointSpec(Expectations):
    label: str = "checkpoint"


TurnKind = Literal["durable", "transient", "request"]
"""What a user turn is, for the scorers: ``durable`` (worth keeping), ``transient`` (an entry
derived from it is noise) or ``request`` (the user asked for it to be kept: it must be)."""
