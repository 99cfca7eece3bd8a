"""Read a bash tuning script without running it: what would the trainer be told?

A row in a resource table claims what its script does (GPUs, backend, engine, model,
batch).  To check that claim the script must be read, but scripts are untrusted: they
are never executed, sourced or passed to a shell.  This module understands the small
part of bash that launchers use -- line continuations, quoting, comments, ``X=...`` and
``export X=...`` assignments, ``$X`` and ``${X}``, integer ``$(( ... ))`` arithmetic and
Hydra-style ``key=value`` overrides on the trainer's command line -- and resolves every
value it can.  Anything it cannot know for sure (a variable set outside the script, a
command substitution, an assignment made inside ``if``/loops/functions, ``$@``) is
*unknown*, represented by ``None``; callers never treat unknown as a mismatch.

Nothing here imports Sphinx: the build, ``rlresources lint`` and ``rlresources new`` all
read scripts through :func:`read_script`.
"""

from __future__ import annotations

from collections.abc import Mapping

from sphinx_rlresources.scripts.files import Files
from sphinx_rlresources.scripts.hydra import read_hydra
from sphinx_rlresources.scripts.interpreter import Interpreter
from sphinx_rlresources.scripts.lexer import MAX_REREAD, Lexer
from sphinx_rlresources.scripts.run import Problem
from sphinx_rlresources.scripts.settings import Override, ScriptSettings
from sphinx_rlresources.scripts.shell import MAX_SCRIPT_CHARS

REREAD_MESSAGE = (
    f"the script nests ${{X:-...}} defaults and arrays so much that reading them again took more than {MAX_REREAD} "
    "characters; from this line on such values are unknown"
)
__all__ = ["MAX_SCRIPT_CHARS", "Override", "Problem", "ScriptSettings", "interpret", "read_script"]


def interpret(
    text: str, env: Mapping[str, str] | None = None, files: Files | None = None, path: str = ""
) -> Interpreter:
    """Walk the script (never run it): its variables and commands, with ``env`` over its defaults.

    ``files`` reads a file the script sources (its path from the root); ``path`` is the
    script's own, where a relative ``source`` is looked for first.
    """
    interpreter = Interpreter(env, files, path)
    if len(text) > MAX_SCRIPT_CHARS:
        interpreter.problems.append(
            Problem(
                0,
                f"the script is {len(text)} characters long, more than the {MAX_SCRIPT_CHARS} read; nothing in it "
                "was checked",
                kind="too-large",
            )
        )
        return interpreter
    try:
        lexer = Lexer(text)
        tokens = lexer.tokens()
        interpreter.bodies = lexer.bodies
        interpreter.read(tokens)
        if lexer.allowance.out_at:
            interpreter.problems.append(Problem(lexer.allowance.out_at, REREAD_MESSAGE))
    except (RecursionError, MemoryError):  # pragma: no cover - bounded above; a last resort
        interpreter.problems.append(Problem(0, "the script is too deeply nested to be read"))
    return interpreter


def read_script(text: str, env: Mapping[str, str] | None = None) -> ScriptSettings:
    """What the script's Hydra-style launch command sets; never raises, never runs anything."""
    return read_hydra(interpret(text, env))
