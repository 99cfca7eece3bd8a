"""What a script records about itself in its comments: the batch search that ran, the engine it needs.

Contributors log their search for the largest batch next to the value
(``nproc_per_gpu=45 # 32√ → 64× → 48× → 40√ → 44√ → 46× → 45×``: √ ran, × ran out of
memory) and state requirements in prose (``vllm version must be >= 0.8.3``).  These are
the script's own records, so a row that contradicts them is wrong by the script's own
word.  A log is read only when every mark in it is one of the common ones -- √/×, ✓/✗,
ok/oom, pass/fail -- after a whole number; anything less clear is not read at all,
rather than guessed at.
"""

from __future__ import annotations

import re

from sphinx_rlresources.scripts.run import BatchLog, Requirement

_ASSIGNED = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=([0-9]{1,7})\s*#\s*(.*)$")
_SEPARATORS = re.compile(r"\s*(?:→|->|=>|⇒|,|;|\|)\s*|\s+")
_ATTEMPT = re.compile(r"([0-9]{1,7})\s*(√|✓|✔|ok|pass|passed|success|×|✗|✘|x|oom|fail|failed)", re.IGNORECASE)
RAN = frozenset({"√", "✓", "✔", "ok", "pass", "passed", "success"})
_REQUIRES = re.compile(
    r"\b(vllm|sglang)\b[^\n#]{0,40}?(?:>=|≥|at least|or newer|or later)\s*v?([0-9]+(?:\.[0-9]+){1,3})", re.IGNORECASE
)
_REQUIRES_AFTER = re.compile(
    r"\b(vllm|sglang)\b[\s:=v]{0,4}([0-9]+(?:\.[0-9]+){1,3})\s*(?:\+(?!\w)|or newer|or later|or above|and above)",
    re.IGNORECASE,
)
"""``vllm 0.8.3 or newer``, ``sglang 0.4.6+``: the bound written after the version."""
MAX_LOGS = 16
SCRIPT_COMMENT = "the script's comment"


def batch_logs(text: str) -> tuple[BatchLog, ...]:
    """Every ``NAME=N  # a√ → b× ...`` line whose comment is a clear log of attempts."""
    found: list[BatchLog] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "#" not in line or len(line) > 400:
            continue
        match = _ASSIGNED.match(line)
        if not match:
            continue
        attempts = _attempts(match.group(3))
        if attempts:
            found.append(BatchLog(match.group(1), number, int(match.group(2)), attempts))
            if len(found) >= MAX_LOGS:
                break
    return tuple(found)


def _attempts(comment: str) -> tuple[tuple[int, bool], ...]:
    """The attempts of a comment made only of attempts (at least two); anything else is not a log."""
    tokens = [t for t in _SEPARATORS.split(comment.strip()) if t]
    attempts = []
    for token in tokens:
        match = _ATTEMPT.fullmatch(token)
        if match is None:
            return ()
        attempts.append((int(match.group(1)), match.group(2).lower() in RAN))
    return tuple(attempts) if len(attempts) >= 2 else ()


def requirements(text: str) -> tuple[Requirement, ...]:
    """Engine versions the script's comments demand (``# vllm version must be >= 0.8.3``)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        comment = line.partition("#")[2] if "#" in line else ""
        if not comment or len(comment) > 400:
            continue
        for pattern in (_REQUIRES, _REQUIRES_AFTER):
            for match in pattern.finditer(comment):
                found.append(Requirement(match.group(1).lower(), match.group(2), number, SCRIPT_COMMENT))
    return tuple(found[:MAX_LOGS])
