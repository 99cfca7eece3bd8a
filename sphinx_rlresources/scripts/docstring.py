"""The launch commands a Python entry point documents in its module docstring, as a script to read.

TRL ships no launch scripts: each of its example scripts (``examples/scripts/grpo_vlm.py``,
``trl/scripts/dpo.py``) says how to run it at the top, in its docstring --
``accelerate launch --config_file … examples/scripts/grpo_vlm.py --model_name_or_path …``,
with prose, ``pip install`` lines and ``# For <model>`` headings between the commands.
Here the docstring is found by a plain reader (comments, blank lines and ``# /// script``
metadata before it; nothing is parsed as Python, nothing imported or run), and only its
command lines are kept -- a line that starts a launch (``accelerate launch``, ``trl``,
``python``, ``torchrun``, ``deepspeed``, ``vllm serve``, ``srun``, ``export`` or
``VAR=value``, after an optional ``$`` prompt) and the lines it continues with ``\\``.
Everything else becomes a blank line, so prose never reaches the shell reader and every
kept line keeps its number in the file.  A plain (not raw) docstring is read as Python
reads its value: ``\\\\`` is one backslash, so ``x.py \\\\`` at a line's end continues the
command as the user who copies it sees it.
"""

from __future__ import annotations

import re

COMMAND_START = re.compile(
    r"^\s*(?:\$ )?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*"
    r"(?:accelerate launch|trl |python3? |vllm serve|srun |torchrun |deepspeed |ray job submit|export |[A-Za-z_]\w*=)"
)
"""A line that starts a command worth reading; anything else in a docstring or a document is prose."""
_OPENING = re.compile(r"""^[rRuU]?(\"\"\"|''')""")
MAX_DOCSTRING_LINES = 2_000
"""A longer docstring is read up to here: the launch commands are at its top."""


def command_lines(lines: list[str]) -> list[str]:
    """``lines`` with every line that is not a command (or a command's ``\\`` continuation) blanked."""
    kept: list[str] = []
    going = False
    for line in lines:
        take = going or bool(COMMAND_START.match(line))
        kept.append(re.sub(r"^(\s*)\$ ", r"\1", line).replace('"""', "").replace("'''", "") if take else "")
        going = take and line.rstrip().endswith("\\")
    return kept


def docstring_span(text: str) -> tuple[int, int] | None:
    """The first and last line (1-based) of the module's docstring; None when it has none.

    The docstring is the first statement: only blank lines and comments may stand
    before it.  Only a triple-quoted one is read (a launch spans lines).
    """
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        opening = _OPENING.match(stripped)
        if opening is None:
            return None
        quote = opening.group(1)
        rest = stripped[opening.end() :]
        if quote in rest:
            return number, number
        for end in range(number + 1, min(len(lines), number + MAX_DOCSTRING_LINES) + 1):
            if quote in lines[end - 1]:
                return number, end
        return None
    return None


def docstring_script(text: str) -> str | None:
    """The module docstring's command lines as a script, each on its line in the file; None: no docstring."""
    span = docstring_span(text)
    if span is None:
        return None
    first, last = span
    lines = text.splitlines()[first - 1 : last]
    opening = _OPENING.match(lines[0].lstrip())
    raw = opening is not None and opening.group(0)[0] in "rR"
    lines[0] = _OPENING.sub("", lines[0].lstrip(), count=1)
    if not raw:  # the docstring's value: Python reads ``\\`` as one backslash (``x.py \\`` continues the line)
        lines = [line.replace("\\\\", "\\") for line in lines]
    kept = command_lines(lines)
    return "\n" * (first - 1) + "\n".join(kept) + "\n"


__all__ = ["COMMAND_START", "command_lines", "docstring_script", "docstring_span"]
