"""The config a verl launch really runs with: its entry point's ``@hydra.main`` config and what that config inherits.

verl's other entry points and verl-recipe's trainers each name their own config
(``@hydra.main(config_path="config", config_name="one_step_off_ppo_trainer")`` in
verl-project/verl@b178a3c verl/experimental/one_step_off_policy/main_ppo.py:219,
``config_name="dapo_trainer"`` in verl-project/verl-recipe@48ea0a7 dapo/main_dapo.py), and
almost every such config starts ``defaults: [ppo_trainer, _self_]``: verl's own config, then
its own keys.  So verl's cited defaults hold for a key such a config does not set, and a key
it sets holds over them; a script's ``--config-path``/``--config-name`` choose another file
the same way (verl's ``examples/sglang_multiturn/config/*.yaml``).

Read only through the caller's :class:`~..files.Files`, and honest where the chain is not
plain: a config that picks config groups itself (``- actor@actor_rollout_ref.actor:
megatron_actor``), a parent that cannot be read, or an entry point whose source or config
is not in the checkout gives no chain at all, so what the script does not say stays unknown.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, load
from sphinx_rlresources.scripts.files import Files, inside
from sphinx_rlresources.scripts.frameworks.inherit import MAX_CONFIG_CHARS, SELF, Parent, merge_chain
from sphinx_rlresources.scripts.interpreter import Command
from sphinx_rlresources.scripts.settings import STOCK_CONFIGS, Override, ScriptSettings

MAX_SOURCE_CHARS = 400_000
"""An entry point's source larger than this is not searched for its ``@hydra.main`` (verl's are under 40 KB)."""
_HYDRA_MAIN = re.compile(r"@hydra\.main\(([^)]{0,400})\)")
_ARGUMENT = re.compile(r"\b(config_path|config_name)\s*=\s*['\"]([^'\"]{1,200})['\"]")
_SKIP = frozenset({"defaults", "hydra"})
KNOWN_POOLS = ("trainer", "rollout", "reward_model", "reward.reward_model", "distillation", "actor_rollout_ref.rollout")
"""The pools verl's reader counts; GPUs given to any other (async_flow's ``async_resources.actor_train``) are not."""


@dataclass(frozen=True)
class Chain:
    """What the launch's config sets beneath the script's overrides, and whether verl's defaults lie beneath it."""

    stock: str | None = None
    """``ppo_trainer`` or ``ppo_megatron_trainer`` when the chain inherits it (its cited defaults apply)."""
    config: str = ""
    """The config file read, from the root ('' when none was)."""
    layer: dict[str, Override] = field(default_factory=dict)
    """Each key the config files set, as an override citing its file and line."""


NO_CHAIN = Chain()


def config_chain(command: Command, s: ScriptSettings, files: Files | None) -> Chain:
    """The chain of the config a verl launch runs with, when the checkout holds it; :data:`NO_CHAIN` otherwise."""
    if files is None or s.entry_point is None or s.stock_config or (s.config_name is None and s.config_name_line):
        return NO_CHAIN  # nothing to read, verl's own config (defaults known), or a --config-name known at run time
    source = _entry_source(files, s.entry_point)
    main = _hydra_main(files, source) if source is not None else None
    name = _stem(s.config_name) if s.config_name is not None else main[1] if main is not None else None
    if name is None or (name in STOCK_CONFIGS and s.config_name is not None):
        return NO_CHAIN  # unknown, or a stock config named by the script: verl's defaults hold (``stock_config``)
    if name in STOCK_CONFIGS and main is not None and source is not None:
        return _stock_main(files, source, main[0], name)
    for folder in _folders(command, source, main[0] if main is not None else None):
        path = inside(posixpath.join(folder, name + ".yaml"))
        text = files.read(path) if path is not None else None
        if path is not None and text is not None:
            return _chain(text, path, files)
    return NO_CHAIN


def foreign_pool(*layers: dict[str, Override]) -> Override | None:
    """The first GPU count of a pool the reader does not count, written by the script or its config.

    verl-recipe's async_flow gives each role its own GPUs (``async_resources.actor_fwd.n_gpus_per_node``,
    verl-project/verl-recipe@48ea0a7 async_flow/config/async_grpo.yaml:97-111): adding up only the
    trainer's would be a wrong total, so there is none.
    """
    for layer in layers:
        for key, override in layer.items():
            pool, _dot, name = key.rpartition(".")
            if name in ("n_gpus_per_node", "nnodes") and pool not in KNOWN_POOLS and override.value not in ("0", None):
                return override
    return None


def _stock_main(files: Files, source: str, folder: str | None, name: str) -> Chain:
    """An entry point whose ``@hydra.main`` names ``ppo_trainer``: verl's own, unless a copy of that name is beside it.

    verl-recipe's partial_rollout points into verl's own folder (``config_path="../../verl/trainer/config"``,
    outside its checkout); rep_exp keeps a ``config/ppo_trainer.yaml`` of its own, which may differ.
    """
    own = inside(posixpath.join(folder, name + ".yaml")) if folder is not None else None
    if folder is None or folder == "verl/trainer/config" or own is None or files.read(own) is None:
        return Chain(name, f"@hydra.main of {source}")
    return NO_CHAIN


def _stem(name: str) -> str:
    return name.strip().strip("'\"").removesuffix(".yaml")


def _entry_source(files: Files, entry: str) -> str | None:
    """The entry point's source from the root (``recipe.dapo.main_dapo``: ``dapo/main_dapo.py`` in verl-recipe)."""
    module = entry.removesuffix(".py").replace(".", "/") if not entry.endswith(".py") else entry.removesuffix(".py")
    tried = [module + ".py"]
    if module.startswith("recipe/"):
        tried.append(module.removeprefix("recipe/") + ".py")  # verl-recipe's checkout is verl's recipe/ folder
    for path in tried:
        normal = inside(path)
        if normal is not None and files.read(normal) is not None:
            return normal
    return None


def _hydra_main(files: Files, source: str) -> tuple[str | None, str] | None:
    """(the config folder from the root, None when outside it; the config name) of the entry point's ``@hydra.main``."""
    text = files.read(source)
    if text is None or len(text) > MAX_SOURCE_CHARS:
        return None
    match = _HYDRA_MAIN.search(text)
    if match is None:
        return None
    arguments = dict(_ARGUMENT.findall(match.group(1)))
    if "config_name" not in arguments:
        return None
    folder = posixpath.normpath(posixpath.join(posixpath.dirname(source), arguments.get("config_path", ".")))
    return (inside(folder) if folder != "." else "", _stem(arguments["config_name"]))


def _folders(command: Command, source: str | None, main_folder: str | None) -> list[str]:
    """Where the config may be: ``--config-path`` (from the entry point's folder, as Hydra has it), else its own."""
    written = _config_path(command)
    if written is None:
        return [main_folder] if main_folder is not None else []
    value, tail = written
    found: list[str] = []
    if value is not None and not value.startswith("/") and source is not None:
        found.append(posixpath.join(posixpath.dirname(source), value))
    elif value is None and tail.startswith("/"):  # "$PROJECT_DIR/examples/x/config": the project is the root
        parts = tail.strip("/").split("/")
        found += ["/".join(parts[i:]) for i in range(len(parts))]
    return [p for p in (inside(f) for f in found) if p is not None]


def _config_path(command: Command) -> tuple[str | None, str] | None:
    """``--config-path``'s value (None when unknown) and its known end; None when the script does not pass one."""
    fields = command.fields
    for index, item in enumerate(fields):
        text = item.value if item.value is not None else item.word.raw
        for flag in ("--config-path", "-cp"):
            if text == flag and index + 1 < len(fields):
                return fields[index + 1].value, fields[index + 1].tail
            if text.startswith(flag + "="):
                prefix = flag + "="
                return (item.value[len(prefix) :] if item.value is not None else None), item.tail.removeprefix(prefix)
    return None


class _Defaults:
    """Reads each ``defaults:`` list of a chain: verl's stock config is noted, not read; a group choice is not plain."""

    def __init__(self) -> None:
        self.stock: list[str] = []
        self.plain = True

    def __call__(self, value: Any, including: str) -> list[Parent]:
        named = value.get("defaults") if isinstance(value, dict) else None
        found: list[Parent] = []
        for item in _listed(named):
            if item == SELF:
                found.append(Parent(SELF, None))
            elif isinstance(item, str) and _stem(item) in STOCK_CONFIGS:
                self.plain = self.plain and not found  # verl's config first, beneath everything, or not plain
                self.stock.append(_stem(item))
            elif isinstance(item, str) and "/" not in item:
                found.append(Parent(item, inside(posixpath.join(posixpath.dirname(including), _stem(item) + ".yaml"))))
            else:
                self.plain = False
        return found


@functools.lru_cache(maxsize=16)
def _document(text: str) -> YamlDocument | None:
    """A config parsed once per text: the examples of one folder name the same config, script after script."""
    try:
        document = load(text, merge_keys=True) if len(text) <= MAX_CONFIG_CHARS else None
    except YamlError:
        return None
    return document if document is not None and isinstance(document.value, dict) else None


def _chain(text: str, path: str, files: Files) -> Chain:
    document = _document(text)
    if document is None:
        return NO_CHAIN
    named = document.value.get("defaults")
    if not any(isinstance(n, str) and n != SELF and _stem(n) not in STOCK_CONFIGS for n in _listed(named)):
        return _own_chain(text, path)  # no parent file: the chain is the text's alone, made once
    return _merged(document, path, files)


def _listed(named: Any) -> list[Any]:
    return named if isinstance(named, list) else []


@functools.lru_cache(maxsize=16)
def _own_chain(text: str, path: str) -> Chain:
    """The chain of a config that inherits no file but verl's own (most of them), kept for the next script."""
    document = _document(text)
    return _merged(document, path, None) if document is not None else NO_CHAIN


def _merged(document: YamlDocument, path: str, files: Files | None) -> Chain:
    defaults = _Defaults()
    merged, _problems = merge_chain(document, path, files, defaults, _SKIP)
    if not defaults.plain or merged.unread or len(set(defaults.stock)) > 1:
        return NO_CHAIN
    layer: dict[str, Override] = {}
    for key in merged.entries:
        entry = merged.entry(key)
        value = text_of(entry.value) if entry is not None else None
        if entry is not None and value is not None:
            known = None if "${" in value else value  # a reference left unresolved: known at run time only
            layer[key] = Override(key, known, entry.written, entry.line, known or "", "set", entry.file or path)
    return Chain(defaults.stock[0] if defaults.stock else None, path, layer)


def text_of(value: Any) -> str | None:
    """A YAML leaf as a script would write it (``True`` -> ``true``, ``None`` -> ``null``); None for a list."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return None
