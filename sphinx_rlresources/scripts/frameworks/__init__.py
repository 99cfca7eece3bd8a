"""One adapter per framework: its own spelling of a run's settings, mapped onto a :class:`~..run.Run`.

A shell script is walked once (:mod:`sphinx_rlresources.scripts.interpreter`); its
commands are offered in order to each adapter's ``claims``, and the first command an
adapter claims is the launch, which that adapter reads.  A recipe config (YAML) is
offered to each config adapter instead.  Adding a framework is one module here and
one line in :data:`ADAPTERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import NamedTuple

from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, load
from sphinx_rlresources.scripts.docstring import docstring_script
from sphinx_rlresources.scripts.files import Files
from sphinx_rlresources.scripts.frameworks import (
    accelerate,
    areal,
    easyr1,
    launcher,
    nemorl,
    openinstruct,
    openrlhf,
    primerl,
    primevocab,
    roll,
    skypilot,
    skyrl,
    slime,
    trl,
    trlcode,
    verl,
)
from sphinx_rlresources.scripts.frameworks.base import Table, module_after
from sphinx_rlresources.scripts.frameworks.pools import settled
from sphinx_rlresources.scripts.frameworks.vocabulary import Vocabulary, says_lora, task_key
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.reader import interpret
from sphinx_rlresources.scripts.records import batch_logs, requirements
from sphinx_rlresources.scripts.run import Problem, Run


class Adapter(NamedTuple):
    """A framework launched from a shell script: which command is its launch, and how to read it."""

    name: str
    claims: Callable[[Command], bool]
    read: Callable[[Command, Interpreter, str], Run]


class ConfigAdapter(NamedTuple):
    """A framework whose run is a config file (a recipe YAML): whether a document is one, and how to read it.

    ``read`` gets the document, its path from the root and the :class:`Files` to read
    what it inherits (``defaults:``), which may be None.
    """

    name: str
    claims: Callable[[YamlDocument], bool]
    read: Callable[[YamlDocument, str, Files | None], Run]


ADAPTERS: tuple[Adapter, ...] = (
    Adapter(easyr1.NAME, easyr1.claims, easyr1.read),  # before verl's: EasyR1's module is inside a verl package
    Adapter(verl.NAME, verl.claims, verl.read),
    Adapter(openrlhf.NAME, openrlhf.claims, openrlhf.read),
    Adapter(slime.NAME, slime.claims, slime.read),
    Adapter(trl.NAME, trl.claims, trl.read),
    Adapter(skyrl.NAME, skyrl.claims, skyrl.read),
    Adapter(nemorl.NAME, nemorl.claims_command, nemorl.read_command),
    Adapter(openinstruct.NAME, openinstruct.claims, openinstruct.read),
    Adapter(areal.NAME, areal.claims, areal.read),
    Adapter(primerl.NAME, primerl.claims, primerl.read),
)
"""In the order they are asked: the first to claim a command reads it."""
CONFIG_ADAPTERS: tuple[ConfigAdapter, ...] = (
    ConfigAdapter(accelerate.NAME, accelerate.claims, accelerate.read),
    ConfigAdapter(roll.NAME, roll.claims, roll.read),
    ConfigAdapter(nemorl.NAME, nemorl.claims, nemorl.read),
    ConfigAdapter(easyr1.NAME, easyr1.claims_config, easyr1.read_config),
    ConfigAdapter(areal.NAME, areal.claims_config, areal.read_config),
)
"""Asked in order for a ``.yaml``/``.yml`` file."""
CONFIG_SUFFIXES = (".yaml", ".yml")
TOML_SUFFIXES = (".toml",)
"""prime-rl's configs (:func:`.primerl.read_toml`); any other TOML is not recognised, saying why."""
PYTHON_SUFFIXES = (".py",)
"""An entry point, read through the launch commands its module docstring documents (TRL's examples)."""
UNREAD_SUFFIXES = (".json", ".cfg", ".ini")
"""Files that define a run but are not read (a Python entry point, a JSON config): what they ask for is unknown."""
VOCABULARIES: dict[str, Vocabulary] = {
    v.framework: v
    for v in (
        verl.VOCABULARY,
        easyr1.VOCABULARY,
        openrlhf.VOCABULARY,
        slime.VOCABULARY,
        trl.VOCABULARY,
        skyrl.VOCABULARY,
        nemorl.VOCABULARY,
        openinstruct.VOCABULARY,
        roll.VOCABULARY,
        primevocab.VOCABULARY,
    )
}
VOCABULARIES["verl-recipe"] = verl.VOCABULARY  # verl's recipe/ launchers speak verl's names
SETTINGS_TABLES: dict[str, Table] = {
    table.framework: table
    for table in (
        verl.TABLE,
        openrlhf.TABLE,
        slime.TABLE,
        skyrl.TABLE,
        skyrl.SFT_TABLE,
        openinstruct.TABLE,
        easyr1.TABLE,
        primerl.TABLE,
        primerl.SFT_TABLE,
        trl.TABLES["grpo"],
        trl.TABLES["rloo"],
        trl.TABLES["sft"],
    )
}
"""Each adapter's settings that are read as a table (:class:`~.base.Table`), for the docs to print."""


def name_says_task(word: str, task: str) -> bool | None:
    """Whether a file name's algorithm word (``grpo``, ``dapo``) agrees with a row's task; None: not compared.

    The word may be an algorithm (NeMo-RL's ``grpo-gspo-…`` recipes run GSPO with GRPO's
    estimator: any task that algorithm runs agrees) or a task (``dapo``); a word no
    framework's vocabulary knows (``cispo``, ``mopd``, ``prorlv2``) says nothing checkable.
    """
    said, row = task_key(word), task_key(task)
    if says_lora(word) != says_lora(task) and says_lora(word):
        return False  # the name says LoRA, the row does not (a row's -LoRA a name may leave out)
    if said == row:
        return True
    runs = {task_key(t) for words in VOCABULARIES.values() for t in words.tasks.get(word.lower(), ())}
    if runs:
        return row in runs
    return False if any(said in words.known_tasks for words in VOCABULARIES.values()) else None


def vocabulary_of(framework: str | None) -> Vocabulary | None:
    """The words of the framework a script was read as (None: no adapter read it, or one without a vocabulary)."""
    return VOCABULARIES.get(framework or "")


class Overrides(NamedTuple):
    """How a framework is told a setting: its key (or keys) for each ``Run`` setting, and how a value is written."""

    framework: str
    style: str
    """``hydra`` (``key=value``), ``flags`` (``--flag value``; a switch alone) or ``yaml`` (``key: value``)."""
    keys: Mapping[str, tuple[str, ...]]
    """A ``Run`` setting -> the keys that take its value, from the adapter's own declaration."""
    switches: frozenset[str] = frozenset()
    """The flags that are switches (``adam_offload``), given alone to turn them on."""

    def lines(self, setting: str, value: object) -> list[str]:
        """The setting as the framework's own overrides, ready to paste (empty: it has no key, or a switch is off)."""
        written = str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else value
        found = []
        for key in dict.fromkeys(self.keys.get(setting, ())):
            if self.style == "hydra":
                found.append(f"{key}={written}")
            elif self.style == "yaml":
                found.append(f"{key}: {written}")
            elif key.removeprefix("--") in self.switches:
                found += [key] if value is True else []
            else:
                found.append(f"{key} {written}")
        return found


def override_keys(run: Run) -> Overrides | None:
    """How to tell the run's framework each setting, from its adapter's declaration; None for a framework without one.

    The one way the CLI learns a framework's keys: each adapter declares its own (verl's
    Hydra keys, OpenRLHF's ``SETTINGS`` table in the script's dialect, NeMo-RL's recipe
    paths), the same declaration its reader reads the script with.
    """
    framework = run.framework or ""
    if framework in (verl.NAME, "verl-recipe"):
        return Overrides(framework, "hydra", verl.override_keys(run))
    if framework == openrlhf.NAME:
        return Overrides(framework, "flags", openrlhf.override_keys(run), openrlhf.SWITCHES)
    if framework == nemorl.NAME:
        return Overrides(framework, "yaml", nemorl.override_keys(run))
    return None


SCRIPT_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch")
"""A launch script's names; a file with no suffix at all is read as one too (``launch``, ``run``)."""
MAX_NAMED = 4
"""Commands (or keys) named when saying why a file was not recognised."""
NEVER_LAUNCHES = frozenset(
    {
        *(":", "[", "cd", "echo", "exit", "false", "popd", "printf", "pushd", "pwd", "return", "set", "shift"),
        *("shopt", "sleep", "test", "trap", "true", "ulimit", "umask", "wait"),
        *("cat", "chmod", "cp", "ln", "ls", "mkdir", "mv", "rm", "touch"),
    }
)
"""Shell builtins and file utilities: never a trainer's launch, so no adapter is asked.

Asking would be slower (a launcher's ``set -x``, ``mkdir -p``, ``echo`` ... before its
one launch) and wrong: ``echo python3 -m verl.trainer.main_ppo ...`` prints a command
line, it does not run it.
"""


def read_run(text: str, path: str = "", env: Mapping[str, str] | None = None, files: Files | None = None) -> Run:
    """What a launch script asks for; never raises, never runs anything.

    ``path`` is the script's path from the repository root; ``env`` is the environment
    the row was measured with, layered over the script's documented defaults;
    ``files`` reads a file the script sources (or None: what it would set is unknown).
    """
    reading = interpret(text, env, files, path)
    for command in reading.commands:
        if command.fields[0].value in NEVER_LAUNCHES:
            continue
        for adapter in ADAPTERS:
            if adapter.claims(command):
                found = settled(adapter.read(command, reading, path))
                logs, requires = batch_logs(text), requirements(text)
                # Most scripts have neither: a fifty-field Run is copied only when there is something to add.
                return replace(found, batch_logs=logs, requires=requires) if logs or requires else found
    generic = launcher.read(reading, text, path)
    if generic is not None:  # no framework's launch, but a launcher's: its GPUs and nodes
        return generic
    problems = tuple(reading.problems)
    variables = {name: value.value for name, value in reading.vars.items()}
    return Run(path=path, problems=problems, variables=variables, unrecognised=_no_launch(reading.commands))


def _no_launch(commands: list[Command]) -> str:
    """Why no adapter read the script: the commands it does run, the first few, as written."""
    named: list[str] = []
    for command in commands:
        program = command.fields[0].value
        if program is None or program in NEVER_LAUNCHES:
            continue
        module, _ = module_after(command)
        shown = f"{program} {module}" if module and module != program else program
        if shown not in named:
            named.append(shown)
    if not named:
        return "the script runs no command but shell builtins and file utilities"
    more = ", ..." if len(named) > MAX_NAMED else ""
    listed = ", ".join(f"'{name}'" for name in named[:MAX_NAMED])
    return f"no command in the script launches a trainer this reader knows (it runs {listed}{more})"


def read_config(text: str, path: str = "", files: Files | None = None) -> Run:
    """What a recipe config asks for (NeMo-RL, ROLL, an accelerate config...); never raises."""
    try:
        document = load(text, merge_keys=True)
    except YamlError as err:
        first = err.problems[0]
        problem = Problem(first.line, f"the config is not valid YAML: {first.message}")
        return Run(path=path, problems=(problem,), unrecognised="the file is not valid YAML")
    if skypilot.claims(document):  # a SkyPilot task: its run: script, with the variables SkyPilot sets
        sky = skypilot.task(document, text)
        return read_run(sky.script, path, sky.env, files)
    for adapter in CONFIG_ADAPTERS:
        if adapter.claims(document):
            return settled(adapter.read(document, path, files))
    if not isinstance(document.value, dict):
        return Run(path=path, unrecognised="the YAML is not a mapping of settings, so no reader knows it")
    keys = [str(key) for key in list(document.value)[: MAX_NAMED + 1]]
    listed = ", ".join(f"'{key}'" for key in keys[:MAX_NAMED]) + (", ..." if len(keys) > MAX_NAMED else "")
    return Run(path=path, unrecognised=f"no reader knows a config with these top-level keys ({listed or 'none'})")


def unread_kind(path: str) -> str:
    """Why a file of a kind no reader reads (:func:`file_kind` None) is not recognised."""
    name = path.rsplit("/", 1)[-1]
    suffix = name[name.rfind(".") :] if "." in name.lstrip(".") else name
    readable = ", ".join((*SCRIPT_SUFFIXES, *CONFIG_SUFFIXES, *TOML_SUFFIXES, *PYTHON_SUFFIXES))
    return f"no reader reads a {suffix} file: launch scripts and recipe configs are read ({readable})"


def file_kind(path: str) -> str | None:
    """``script``, ``config`` or None (a kind no reader reads: ``.json``, ``.md``...), by the name."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(CONFIG_SUFFIXES + TOML_SUFFIXES):
        return "config"
    if name.endswith(SCRIPT_SUFFIXES + PYTHON_SUFFIXES) or "." not in name.lstrip("."):
        return "script"
    return None


def read_python(text: str, path: str, env: Mapping[str, str] | None = None, files: Files | None = None) -> Run:
    """A Python entry point, through the commands of its module docstring (:mod:`..docstring`); never runs it.

    A docstring that offers several launches ("without vLLM", "with a vLLM server") offers
    alternatives: the first launch is the run read, with what comes before it (a ``trl
    vllm-serve`` it uses, an ``export``), and ``launch_line`` says which line that is.
    When that launch runs the module itself and the module trains with one of TRL's
    configs, TRL's adapter reads it with what the code says (:mod:`.trlcode`); one that
    trains with none but generates with vLLM's own ``LLM(…)`` is read as that engine.
    """
    script = docstring_script(text)
    if script is None or not script.strip():
        why = "the module has no docstring with a launch command (a .py file is read through the commands it documents)"
        return Run(path=path, unrecognised=why)
    reading = interpret(script, env, files, path)
    first = next((command for command in reading.commands if _launches(command, path)), None)
    if first is not None and first is not reading.commands[-1]:
        last = max(field.line for field in first.fields)
        script = "\n".join(script.splitlines()[:last]) + "\n"
        reading = interpret(script, env, files, path)
    if first is not None and _runs_itself(first, path):
        launch = next(command for command in reading.commands if command.line == first.line)
        code = trlcode.read(text)
        if code is not None:
            return settled(trl.read(launch, reading, path, code))
        engine = trlcode.offline(text)  # no TRL config trains: an evaluation with vLLM's own LLM()
        if engine is not None:
            return trl.read_offline(launch, reading, path, engine)
    run = read_run(script, path, env, files)
    return replace(run, unrecognised=f"in its docstring, {run.unrecognised}") if run.unrecognised else run


def _launches(command: Command, path: str) -> bool:
    """A command that starts a run: one an adapter claims (not a ``trl vllm-serve`` beside it), a launcher's,
    or plain ``python`` of the module itself -- not ``python prepare_data.py`` or ``python -m pip`` before it."""
    if command.fields[0].value in NEVER_LAUNCHES:
        return False
    own = trl.parse(command)
    if own is not None and own.kind == "server":
        return False
    if any(adapter.claims(command) for adapter in ADAPTERS):
        return True
    generic = launcher.parse(command)
    if generic is None or generic.entry is None:
        return False
    return generic.kind != "python" or _runs_itself(command, path)


def _runs_itself(command: Command, path: str) -> bool:
    """Whether a docstring's launch runs the module it documents (``python examples/scripts/x.py`` in x.py)."""
    launch = trl.parse(command)
    if launch is None or launch.kind not in ("python", "accelerate") or not launch.script:
        return False
    return launch.script.rsplit("/", 1)[-1] == path.rsplit("/", 1)[-1]


def read_file(text: str, path: str, env: Mapping[str, str] | None = None, files: Files | None = None) -> Run:
    """A launch script or a recipe config, by its name: the one entry of ``inspect`` and of the checks."""
    if path.lower().endswith(CONFIG_SUFFIXES):
        return read_config(text, path, files)
    if path.lower().endswith(TOML_SUFFIXES):
        return settled(primerl.read_toml(text, path))
    if path.lower().endswith(PYTHON_SUFFIXES):
        return read_python(text, path, env, files)
    if path.lower().endswith(UNREAD_SUFFIXES):
        return Run(path=path, unrecognised=unread_kind(path))
    return read_run(text, path, env, files)
