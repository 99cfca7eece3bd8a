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

from sphinx_rlresources.scripts.interpreter import Interpreter
from sphinx_rlresources.scripts.lexer import Lexer
from sphinx_rlresources.scripts.settings import Override, ScriptProblem, ScriptSettings
from sphinx_rlresources.scripts.shell import MAX_SCRIPT_CHARS

__all__ = ["MAX_SCRIPT_CHARS", "Override", "ScriptProblem", "ScriptSettings", "read_script"]


def read_script(text: str) -> ScriptSettings:
    """What the script's trainer command sets; never raises, never runs anything."""
    try:
        return _read(text)
    except (RecursionError, MemoryError):  # pragma: no cover - bounded above; a last resort
        return ScriptSettings(problems=[ScriptProblem(0, "the script is too deeply nested to be read")])


def _read(text: str) -> ScriptSettings:
    if len(text) > MAX_SCRIPT_CHARS:
        return ScriptSettings(
            problems=[
                ScriptProblem(
                    0,
                    f"the script is {len(text)} characters long, more than the {MAX_SCRIPT_CHARS} "
                    "read; nothing in it was checked",
                )
            ]
        )
    interpreter = Interpreter()
    interpreter.run(Lexer(text).tokens())
    return ScriptSettings(
        overrides=interpreter.overrides,
        config_name=interpreter.config_name,
        config_name_line=interpreter.config_name_line,
        trainer_line=interpreter.trainer_line,
        entry_point=interpreter.entry_point,
        problems=interpreter.problems,
        variables={name: value.value for name, value in interpreter.vars.items()},
    )
