"""The identity of a unit of work, a run :class:`Cell`, and where its files go.

A cell is (scenario, model, policy, variant, repeat). The engine traces it, the cassettes
are named by it, results and baselines group by it, and the CLI and nox sessions choose
cells from :data:`DEFAULT_SUITE`; every path of a cell is computed here:

- run directory: ``<out>/<scenario>/<model, '/' -> '__'>/<policy>/<variant>/repeat-<N>``;
- cassette: ``<root>/<scenario>/<model, '/' -> '__'>/<policy>/<variant>.yaml``, or
  ``.../<variant>/repeat-<N>.yaml`` for a cell run several times.

Standard library only: the noxfile imports this module without installing the project.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

__all__ = ["DEFAULT_CASSETTE_ROOT", "DEFAULT_SUITE", "Cell", "SuiteCell"]

DEFAULT_CASSETTE_ROOT = Path("cassettes")
_REPEAT_FILE = re.compile(r"repeat-(\d+)\.yaml")


@dataclass(frozen=True)
class Cell:
    """One cell of the experiment grid."""

    scenario: str
    """Scenario name."""
    model: str
    """``provider/model``."""
    policy: str
    """Write policy name."""
    variant: str
    """Tool-description variant name (a file's stem)."""
    repeat: int | None = None
    """Repeat number (1-based) of a cell run several times; None for the cell's only run,
    and for a cell standing for all its repeats (:attr:`group`)."""

    @property
    def repeat_number(self) -> int:
        """The 1-based repeat number written to traces and results."""
        return self.repeat or 1

    @property
    def group(self) -> Cell:
        """The cell without its repeat: what results, reports and baselines group by."""
        return replace(self, repeat=None)

    @property
    def name(self) -> str:
        """``scenario / model / policy / variant`` for messages and tables."""
        return " / ".join((self.scenario, self.model, self.policy, self.variant))

    @property
    def sort_key(self) -> tuple[str, str, str, str, int]:
        """A stable order: by scenario, model, policy, variant, then repeat."""
        return (self.scenario, self.model, self.policy, self.variant, self.repeat or 0)

    def run_dir(self, out: Path) -> Path:
        """Where this cell's ``trace.jsonl`` and ``memory/`` go under the run directory."""
        return self._base(out) / self.variant / f"repeat-{self.repeat_number}"

    def cassette_path(self, root: Path = DEFAULT_CASSETTE_ROOT) -> Path:
        """This cell's cassette under ``root``."""
        if self.repeat is None:
            return self._base(root) / f"{self.variant}.yaml"
        return self._base(root) / self.variant / f"repeat-{self.repeat}.yaml"

    @classmethod
    def from_cassette_path(cls, path: Path, root: Path = DEFAULT_CASSETTE_ROOT) -> Cell | None:
        """The cell whose :meth:`cassette_path` under ``root`` is ``path``, if any."""
        parts = path.relative_to(root).parts
        cell: Cell | None = None
        if len(parts) == 4 and parts[3].endswith(".yaml"):
            cell = cls(parts[0], _model(parts[1]), parts[2], parts[3].removesuffix(".yaml"))
        elif len(parts) == 5 and (repeat := _REPEAT_FILE.fullmatch(parts[4])):
            cell = cls(parts[0], _model(parts[1]), parts[2], parts[3], int(repeat.group(1)))
        # cassette_path is the authority: accept only what it maps back onto this file.
        return cell if cell is not None and cell.cassette_path(root) == path else None

    def rerecord_command(
        self, scenario_file: Path | str | None = None, variant_file: Path | str | None = None
    ) -> str:
        """A command that records this cell's missing model calls, as the user can paste it.

        ``scenario_file`` is the file the run used (default ``scenarios/<scenario>.yaml``);
        ``variant_file`` the variant's ``.toml`` when it is not a shipped one (its stem alone
        would not resolve).
        The local Qwen model records with ``memeval record`` (it starts its own server);
        another OpenAI-compatible model needs its server's address; hosted models read
        their API key from the environment.
        """
        # At call time: this module stays stdlib-only.
        from evals.grid.local_model import DEFAULT_LOCAL_MODEL, LOCAL_MODELS

        scenario = shlex.quote(str(scenario_file or f"scenarios/{self.scenario}.yaml"))
        repeat = f" --repeat {self.repeat}" if self.repeat is not None else ""
        # Absolute, so the command works from any directory (a label names it relative).
        variant = shlex.quote(str(Path(variant_file).resolve())) if variant_file else self.variant
        cell = f"--scenario {scenario} --policy {self.policy} --variant {variant}"
        if self.model == DEFAULT_LOCAL_MODEL.name:
            return f"memeval record {cell}{repeat}"
        if self.model in LOCAL_MODELS:
            return f"memeval record {cell} --model {self.model}{repeat}"
        command = f"memeval run {cell} --model {self.model}{repeat} --record"
        if self.model.startswith("openai-compatible/"):
            command += " -M base_url=http://127.0.0.1:PORT/v1  (your server's address)"
        return command

    def _base(self, root: Path) -> Path:
        return root / self.scenario / self.model.replace("/", "__") / self.policy


def _model(directory: str) -> str:
    # ``provider/model`` was written as ``provider__model``; the provider holds no "__".
    return directory.replace("__", "/", 1)


@dataclass(frozen=True)
class SuiteCell:
    """A (model, policy) pair of the default offline suite, run on every scenario."""

    model: str
    """``provider/model``."""
    policy: str
    """Write policy name."""

    @property
    def name(self) -> str:
        """``careful-guardrails``: names nox sessions and their run directories."""
        return f"{self.model.rsplit('/', 1)[-1]}-{self.policy}"


DEFAULT_SUITE: tuple[SuiteCell, ...] = (
    SuiteCell("sim/careful", "guardrails"),
    SuiteCell("sim/careful", "unified"),
    SuiteCell("sim/naive", "append"),
)
"""What ``memeval run`` runs with no ``--model``/``--policy``, and the nox eval sessions."""
