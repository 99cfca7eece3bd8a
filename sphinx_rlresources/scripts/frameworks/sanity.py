"""Script mistakes a reader can see in any framework's launch, whatever it spells its settings.

Each is a :class:`~..run.Problem` the row checks report as ``rlresources.script_sanity``:
a group-relative advantage (GRPO and its kin) with one sample per prompt, whose
advantage is then zero; an absolute path of one person's machine put on the import
path; the same setting given twice.
"""

from __future__ import annotations

import re

from sphinx_rlresources.safe.text import shown
from sphinx_rlresources.scripts.interpreter import Interpreter
from sphinx_rlresources.scripts.run import Found, Problem, Run
from sphinx_rlresources.scripts.settings import ScriptSettings

#: Estimators whose advantage compares a response with the others of its group: one sample has none to compare.
GROUP_RELATIVE = frozenset({"grpo", "grpo_passk", "rloo", "opo", "gpg", "drgrpo", "dr_grpo", "gspo", "dapo"})
#: Variables whose value is a search path of the machine the script runs on.
PATH_VARIABLES = ("PYTHONPATH", "LD_LIBRARY_PATH")
_MACHINE_PATH = re.compile(r"(?:^|:)(/(?:opt|mnt|data\d*|cpfs\d*|nas|home/[^/:$]+|Users/[^/:$]+|root)/[^:]*)")


def common_problems(run: Run, reading: Interpreter, settings: ScriptSettings | None = None) -> list[Problem]:
    """The mistakes any framework's launch can make, for a read :class:`Run`."""
    return launch_problems(run.algorithm, run.rollout_n, run.launch_line, reading, settings)


def launch_problems(
    algorithm: Found[str], n: Found[int], launch_line: int, reading: Interpreter, settings: ScriptSettings | None
) -> list[Problem]:
    """:func:`common_problems` from the settings it looks at, for an adapter that has not made its Run yet.

    verl's adapter passes the problems to the Run it makes instead of copying a fifty-field
    record to add them, on lint's and the build's per-row path.
    """
    found: list[Problem] = []
    # Only a count the script writes: a framework's default is a config's business, and a
    # reader that flags every script leaving it out would cry wolf on toy examples.
    if algorithm.value in GROUP_RELATIVE and n.value == 1 and n.explicit:
        where = n.line or algorithm.line
        how = n.written
        found.append(
            Problem(
                where,
                f"{algorithm.value} compares each response with the others sampled for its prompt, but {how}: with "
                "one response per prompt every advantage is zero and nothing is learned; sample more (rollout.n=5)",
                "rollout_n",
                kind="zero-advantage",
            )
        )
    prefix = settings.prefix if settings is not None else {}
    for name in PATH_VARIABLES:
        # As written: the machine's folder is usually joined to the inherited path (/opt/x:$PYTHONPATH),
        # which makes the whole value unknown although its start is plain text.
        value = prefix.get(name) if name in prefix else reading.written.get(name, "").partition("=")[2]
        match = _MACHINE_PATH.search((value or "").strip("'\""))
        if match:
            line = launch_line if name in prefix else reading.lines.get(name, 0)
            found.append(
                Problem(
                    line,
                    f"{name}={shown(value)} puts {shown(match.group(1))}, a folder of one machine, on the path: the "
                    "script runs only there; drop it (install the package instead) or take it from the environment "
                    f"(${{{name}:-}})",
                    name,
                    kind="machine-path",
                    severity="warning",
                )
            )
    return found


_BOOLEANS = frozenset({"true", "false"})


def _same(earlier: object, later: object) -> bool:
    """Equal values; ``true`` and ``True`` are one boolean to Hydra (SkyRL's run_megatron_qwen3.5.sh gives both)."""
    if earlier == later:
        return True
    words = (str(earlier).lower(), str(later).lower())
    return words[0] == words[1] and words[0] in _BOOLEANS


def duplicate_problems(settings: ScriptSettings) -> list[Problem]:
    """The same override twice: a warning when equal (one is noise), an error when they differ (one is ignored)."""
    found = []
    for earlier, later in settings.duplicates:
        if earlier.value is not None and _same(earlier.value, later.value):
            found.append(
                Problem(
                    later.line,
                    f"{later.key} is given twice with the same value (also at line {earlier.line}); delete one",
                    later.key,
                    kind="duplicate",
                    severity="warning",
                )
            )
        else:
            found.append(
                Problem(
                    later.line,
                    f"{later.key} is given twice, {shown(earlier.shown)} at line {earlier.line} and "
                    f"{shown(later.shown)} here; the last one wins, so the first is silently ignored: keep one",
                    later.key,
                    kind="duplicate",
                )
            )
    return found
