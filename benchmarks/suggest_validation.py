#!/usr/bin/env python3
"""``estimate --suggest`` held against published runs: is what it suggests what ran, and below what failed?

For each run of a validation set (``benchmarks/memory_points.csv`` by default, the same
rows :mod:`estimator_validation` reads), the suggestion is searched as ``rlresources
estimate --suggest`` searches it -- over the settings the run's framework has keys for --
and its batch (the token budget under dynamic batching, else the micro-batch) is put
beside the run's own:

* a run that **ran**: the suggestion keeps it, when it suggests at least ``1 - MARGIN``
  of the batch that ran, on the run's own GPUs (suggesting less, or more GPUs, would
  have told someone to shrink a configuration that worked);
* a run that went **out of memory**: the suggestion keeps it from failing, when it
  suggests less than the batch that failed (or more GPUs than it had).

    python benchmarks/suggest_validation.py            # every run, and the counts
    python benchmarks/suggest_validation.py --set benchmarks/measured_gpu.csv

docs/estimator.rst draws the same counts at build time (:func:`summary`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from estimator_validation import Checked, checked

from sphinx_rlresources.estimator.memory import MARGIN
from sphinx_rlresources.estimator.suggest import Suggestion, suggest
from sphinx_rlresources.scripts.frameworks import override_keys

POINTS = Path(__file__).resolve().parent / "memory_points.csv"


@dataclass(frozen=True)
class Compared:
    """One published run beside what ``--suggest`` says for it."""

    checked: Checked
    suggestion: Suggestion | None
    setting: str
    """``max_token_len_per_gpu`` under dynamic batching, else ``micro_batch_per_gpu``."""
    ran_with: int
    """The run's own value of the setting (what ran, or what failed)."""
    suggested: int | None
    """The suggestion's value; None when nothing fits."""

    @property
    def more_gpus(self) -> bool:
        return self.suggestion is None or self.suggestion.plan.gpus > self.checked.result.plan.gpus

    @property
    def kept(self) -> bool:
        """Whether the suggestion agrees with the outcome (see the module docstring)."""
        if self.checked.point.outcome == "ran":
            return not self.more_gpus and (self.suggested or 0) >= (1 - MARGIN) * self.ran_with
        return self.more_gpus or (self.suggested or 0) < self.ran_with


def compare(found: Checked) -> Compared:
    plan = found.result.plan
    keys = override_keys(found.point.run)
    suggestion = suggest(found.result.arch, plan, None if keys is None else frozenset(keys.keys))
    setting = "max_token_len_per_gpu" if plan.dynamic_batch else "micro_batch_per_gpu"
    own = int(getattr(plan, setting) or 0)
    value = int(getattr(suggestion.plan, setting) or 0) if suggestion is not None else None
    return Compared(found, suggestion, setting, own, value)


def compared(path: Path) -> list[Compared]:
    return [compare(c) for c in checked(path)]


def summary(rows: list[Compared]) -> str:
    """The counts, in one sentence (the docs print it)."""
    ran = [r for r in rows if r.checked.point.outcome == "ran"]
    oom = [r for r in rows if r.checked.point.outcome == "oom"]
    return (
        f"{len(rows)} runs. Of the {len(ran)} that ran, the suggestion is at least {1 - MARGIN:.0%} of what ran "
        f"on the same GPUs for {sum(r.kept for r in ran)}; of the {len(oom)} that ran out of memory, it is below "
        f"what failed for {sum(r.kept for r in oom)}."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=POINTS, help="a validation set (default: memory_points.csv)")
    args = parser.parse_args(argv)
    rows = compared(args.set)
    print(f"{'run':<52}{'outcome':<8}{'setting':<24}{'run with':>9}{'suggested':>10}{'GPUs':>6}  kept")
    for r in rows:
        gpus = r.suggestion.gpus if r.suggestion is not None else "-"
        suggested = "-" if r.suggested is None else str(r.suggested)
        print(
            f"{r.checked.point.id:<52}{r.checked.point.outcome:<8}{r.setting:<24}{r.ran_with:>9}{suggested:>10}"
            f"{gpus!s:>6}  {'yes' if r.kept else 'NO'}"
        )
    print()
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
