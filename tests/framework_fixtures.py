"""Reading the framework fixtures under ``tests/frameworks/<name>/`` as a repository would be read.

Each fixture tree stands for a repository root: scripts delegate to and configs inherit
from paths relative to it, so :class:`TreeFiles` answers the reader's
:class:`~sphinx_rlresources.scripts.files.Files` questions from that folder only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import estimate
from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Run

FIXTURES = Path(__file__).resolve().parent / "frameworks"


class TreeFiles:
    """A :class:`Files` over one fixture tree; records every path asked for."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.asked: list[str] = []

    def read(self, path: str) -> str | None:
        self.asked.append(path)
        target = (self.root / path).resolve()
        if self.root not in target.parents or not target.is_file():
            return None
        return target.read_text("utf-8")


def read(framework: str, path: str, env: Mapping[str, str] | None = None, files: bool = True) -> Run:
    """What the reader makes of ``tests/frameworks/<framework>/<path>`` (with its tree readable, or not)."""
    root = FIXTURES / framework
    return read_file((root / path).read_text("utf-8"), path, env, TreeFiles(root) if files else None)


SETTING_NAMES: tuple[str, ...] = tuple(Run().settings())
"""The names of every setting a :class:`Run` holds (the columns ``inspect`` prints)."""


def values(run: Run) -> dict[str, object]:
    """Every setting's value by name (None: unknown)."""
    return {name: found.value for name, found in run.settings().items()}


def settled(run: Run, *layers: Mapping[str, object], **expected: object) -> None:
    """Assert that ``run`` reports exactly these values (later ones winning), and every other setting is unknown."""
    wanted: dict[str, object] = dict.fromkeys(SETTING_NAMES)
    for layer in (*layers, expected):
        wanted.update(layer)
    assert values(run) == wanted


def roles(run: Run) -> list[tuple[str, object, object, object, str]]:
    """Each role as (name, GPUs, nodes, GPUs per node, the role it shares GPUs with)."""
    return [(r.name, r.gpus.value, r.nodes.value, r.gpus_per_node.value, r.colocated_with) for r in run.roles]


def kinds(run: Run) -> list[tuple[int, str, str]]:
    """Each problem as (line, kind, severity)."""
    return [(p.line, p.kind, p.severity) for p in run.problems]


def pass_logits(framework: str, model: str, train: str, engine: str) -> list[str]:
    """The logits terms of the actor's log-prob pass in the expected peak, with the framework's facts."""
    arch = bundled(model)
    assert arch is not None
    row = Row(model, None, "", "GRPO", 8, train, engine)
    plan = plan_for_row(row, Run(framework=framework), "H100", 79.6)
    moment = next(m for m in estimate(arch, plan).expected.moments if m.name == "the actor's log-prob pass")
    return [t.name for t in moment.terms if t.name.startswith("logits")]
