"""The Hydra-style launch of a script: ``python3 -m trainer key=value ...`` (verl, verl-recipe, SkyRL, EasyR1).

The launch is the first recorded command with a dotted ``key=value`` argument
(``trainer.nnodes=1``); its overrides are read with the line that wrote each one --
inside an array when the script keeps them there -- and the mistakes a reader can see
without running it are problems of the script: a value passed as a bare word that is
the name of a variable the script sets (a missing ``$``), a variable used but never
set, and the same key given twice.
"""

from __future__ import annotations

import re

from sphinx_rlresources.safe.text import shown
from sphinx_rlresources.scripts.expand import Field
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.lexer import Lit
from sphinx_rlresources.scripts.run import Problem
from sphinx_rlresources.scripts.settings import Override, ScriptSettings
from sphinx_rlresources.scripts.shell import NAME_RE
from sphinx_rlresources.scripts.unset import more_message, unset_message, unset_uses

KEY_RE = re.compile(r"(\+\+|\+|~)?([A-Za-z_][A-Za-z0-9_\-]*(?:[./@][A-Za-z0-9_\-]+)*)")
"""A Hydra override key (``trainer.nnodes``, ``+extra.key``, ``++forced``, ``actor@actor_rollout_ref.actor``)."""


def _key_of(field: Field) -> tuple[str, str] | None:
    """(key, raw) when the field's literal start is ``key=``: keys are always written out."""
    parts = field.word.parts
    first = parts[0] if parts else None
    if type(first) is Lit and "=" in first.text:  # most arguments: key=... starts with literal text
        lead = first.text
        parts = ()
    else:
        lead = ""
    for part in parts:
        if not isinstance(part, Lit):
            break
        lead += part.text
        if "=" in lead:
            break
    if "=" not in lead:
        return None
    raw = lead.split("=", 1)[0]
    return _key(raw)


def _key(raw: str) -> tuple[str, str] | None:
    """(key, raw) of a written key (``+trainer.nnodes`` -> ``trainer.nnodes``), or None."""
    match = KEY_RE.fullmatch(raw)
    if not match or raw.startswith("-"):
        return None
    return match.group(2), raw


def _value_of(field: Field, raw_key: str) -> tuple[str | None, str]:
    """The value after ``key=`` (None when unknown) and its known end."""
    prefix = raw_key + "="
    if field.value is not None and field.value.startswith(prefix):
        value = field.value[len(prefix) :]
        return value, value
    return None, field.tail.removeprefix(prefix) if field.tail.startswith(prefix) else field.tail


def launch(interpreter: Interpreter) -> Command | None:
    """The first command that passes a dotted Hydra override."""
    for command in interpreter.commands:
        for field in command.fields:
            found = _key_of(field)
            if found is not None and "." in found[0]:
                return command
    return None


def read_hydra(interpreter: Interpreter, command: Command | None = None) -> ScriptSettings:
    """What the launch command (the first with a dotted override, unless given) sets, with its problems."""
    command = command or launch(interpreter)
    problems = list(interpreter.problems)
    variables = {name: value.value for name, value in interpreter.vars.items()}
    if command is None:
        return ScriptSettings(problems=problems, variables=variables)
    overrides: dict[str, Override] = {}
    duplicates: list[tuple[Override, Override]] = []
    set_names = interpreter.vars.keys() | interpreter.arrays.keys()
    keyed: list[tuple[Field, str]] = []
    for field in command.fields:
        found = _key_of(field)
        if found is None:
            continue
        key, raw_key = found
        keyed.append((field, key))
        value, tail = _value_of(field, raw_key)
        override = Override(key, value, field.word.raw, field.line, tail, field.origin, field.file)
        mistakes = _check(field, key, raw_key, set_names)
        if mistakes:
            override, mistakes = _meant(override, mistakes[0], interpreter)
        if key in overrides:
            duplicates.append((overrides[key], override))
        overrides[key] = override  # Hydra: the last one wins
        problems.extend(mistakes)
    listed, more = unset_uses(keyed)
    problems.extend(Problem(f.line, unset_message(f, name), key, kind="unset") for f, key, name in listed)
    if more.uses:
        problems.append(Problem(more.line, more_message(more), kind="unset"))
    config_name, config_line = _config_name(command)
    return ScriptSettings(
        overrides=overrides,
        config_name=config_name,
        config_name_line=config_line,
        trainer_line=command.line,
        entry_point=entry_point(command),
        problems=problems,
        variables=variables,
        duplicates=duplicates,
        prefix={name: field.word.raw.partition("=")[2] for name, field in command.prefix},
    )


def entry_point(command: Command) -> str | None:
    """What the command runs: the module after ``-m``, or the first ``*.py``."""
    texts = [field.value for field in command.fields]
    for index, text in enumerate(texts):
        if text == "-m" and index + 1 < len(texts):
            return texts[index + 1]
        if text and text.endswith(".py") and "=" not in text:
            return text.removeprefix("./")
    return None


def _config_name(command: Command) -> tuple[str | None, int]:
    fields = command.fields
    found: tuple[str | None, int] = (None, 0)
    for index, field in enumerate(fields):
        text = field.value or ""
        if not (text or field.word.raw).startswith("-"):
            continue  # only an option names the config
        for flag in ("--config-name", "-cn"):
            if text == flag and index + 1 < len(fields):
                found = (fields[index + 1].value, fields[index + 1].line)
            elif text.startswith(flag + "="):
                found = (text[len(flag) + 1 :], field.line)
            elif field.value is None and field.word.raw.startswith(flag + "="):
                found = (None, field.line)
    return found


def _check(field: Field, key: str, raw_key: str, set_names: set[str]) -> list[Problem]:
    problems = []
    parts = field.word.parts
    bare = None
    if len(parts) == 1 and type(parts[0]) is Lit:  # most arguments: one run of literal text
        bare = parts[0].text.split("=", 1)[1]
    elif all(isinstance(p, Lit) for p in parts):
        bare = "".join(p.text for p in parts if isinstance(p, Lit)).split("=", 1)[1]
    if bare and bare in set_names and NAME_RE.fullmatch(bare) and _looks_like_a_variable(key, bare):
        problems.append(
            Problem(
                field.line,
                f"{raw_key}={bare} passes the word {shown(bare)}, which is the name of a variable the "
                f"script sets: a missing '$'? write {raw_key}=${bare}",
                key,
                kind="missing-dollar",
            )
        )
    return problems


def _meant(override: Override, problem: Problem, interpreter: Interpreter) -> tuple[Override, list[Problem]]:
    """A value passed as a variable's bare name, read as the variable it obviously meant (the problem says so).

    ``actor_rollout_ref.model.path=model_path`` beside ``model_path=Qwen/Qwen2-72B-Instruct``
    (volcengine/verl@b178a3c examples/tuning/70b/qwen2-70b_grpo_32_h20_fsdp_vllm.sh:5,16) is a
    script that fails as written, and one that trains Qwen2-72B once the ``$`` is added: the
    checks compare the row with the second, since that is the run the row was measured with.
    """
    name = override.value or ""
    variable = interpreter.vars.get(name)
    if problem.kind != "missing-dollar" or variable is None or variable.value is None:
        return override, [problem]  # an array's name, or a value known only at run time: not compared
    meant = override._replace(value=variable.value, tail=variable.value, origin=variable.origin, meant=name)
    said = f"{problem.message}; the checks read it as ${name} ({shown(variable.value)})"
    return meant, [Problem(problem.line, said, "", problem.kind, problem.severity)]


def _looks_like_a_variable(key: str, word: str) -> bool:
    """Whether a bare word passed for ``key`` is more likely a forgotten ``$NAME`` than a value.

    A plain lowercase word (``prompt``, ``auto``) is an ordinary value even when the
    script happens to have a variable of that name; the model path never is, and
    ``MODEL_PATH``, ``n_gpus`` or ``trainer.nnodes=nnodes`` read as variables.
    """
    last = key.rsplit(".", 1)[-1]
    return key == "actor_rollout_ref.model.path" or word.lower() == last.lower() or word != word.lower() or "_" in word
