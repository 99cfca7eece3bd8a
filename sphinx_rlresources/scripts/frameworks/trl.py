"""TRL: ``accelerate launch [--config_file X.yaml] script.py …``, ``trl grpo|rloo …``, and ``trl vllm-serve``.

The trainer's GPUs are accelerate's processes: ``--num_processes`` when the command
says it, else the config it names (read through the caller's
:class:`~..files.Files`; TRL's ``--accelerate_config zero3`` names a file shipped in the
``trl`` package, read only when the repository is TRL's own), else -- with no config
at all -- every device ``CUDA_VISIBLE_DEVICES`` leaves visible.  A config that cannot
be read leaves the count unknown: accelerate's shipped examples say 8, but which file
a user has is not known.  In vLLM server mode the server's GPUs (``trl vllm-serve
--tensor_parallel_size × --data_parallel_size``, or its visible devices) add to the
trainer's; when both commands pin their devices the run's GPUs are the devices named.
vLLM's own ``vllm serve MODEL`` is that server only for a trainer whose config always
generates on one (``AsyncGRPOConfig``, read in the script's code); beside any other
trainer it is a server of its own (a judge, a teacher) whose GPUs add to the run's, as
every reader counts a server its script starts (:func:`.argv.with_servers`).

TRL's own defaults (huggingface/trl@f2cd577: ``trl/trainer/grpo_config.py``,
``rloo_config.py``, ``model_config.py``, ``base_config.py``) apply only to TRL's own
scripts (``trl grpo``, ``trl/scripts/grpo.py``); an example or a user's script may set
anything in code (``GRPOConfig(use_vllm=True)``, ``LoraConfig()``), so what its command
line does not say is unknown there -- unless the script is the module whose docstring
launches it: then its code is read for its config, ``use_vllm`` and model
(:mod:`.trlcode`).  TRL's defaults are a settings table per trainer (:data:`TABLES`, keyed
by flag); accelerate's and the vLLM server's flags are read where the placement is.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, load
from sphinx_rlresources.scripts.files import candidates
from sphinx_rlresources.scripts.frameworks import accelerate, trlcode
from sphinx_rlresources.scripts.frameworks.argv import as_model, elided, visible_devices, when, with_servers
from sphinx_rlresources.scripts.frameworks.base import (
    Flag,
    Setting,
    Table,
    as_bool,
    as_float,
    as_int,
    as_lower,
    default,
    derived,
    from_override,
    product,
)
from sphinx_rlresources.scripts.frameworks.sanity import common_problems
from sphinx_rlresources.scripts.frameworks.trlcommand import (
    MARKERS,
    RL_TRAINERS,
    TRAINERS,
    TRL_SERVER,
    Launch,
    parse,
)
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run

NAME = "trl"
T = TypeVar("T")
COMMON_SETTINGS = {
    "use_peft": Setting(("use_peft",), as_bool, False, "trl/trainer/model_config.py:103"),
    "lora_r": Setting(("lora_r",), as_int, 16, "trl/trainer/model_config.py:107"),
    "gradient_checkpointing": Setting(("gradient_checkpointing",), as_bool, True, "trl/trainer/base_config.py:61"),
    # torch_dtype before v0.23 (#4000), None by default then: transformers loaded fp32 all the same.
    "dtype": Setting(("dtype",), as_lower, "float32", "trl/trainer/model_config.py:89-90", old=("torch_dtype",)),
}
"""What every TRL trainer's arguments default (ModelConfig, the base TrainingArguments) at huggingface/trl@f2cd577."""


def _rl(
    config: str, generations: tuple[int, int], beta: tuple[float, int], lines: tuple[int, int, int, int, int]
) -> dict[str, Setting]:
    """A sampling trainer's own defaults: its config file and the line of each field."""
    source = f"trl/trainer/{config}:{{}}"
    return {
        "num_generations": Setting(("num_generations",), as_int, generations[0], source.format(generations[1])),
        "max_completion_length": Setting(("max_completion_length",), as_int, 512, source.format(lines[0])),
        "beta": Setting(("beta",), as_float, beta[0], source.format(beta[1])),
        "use_vllm": Setting(("use_vllm",), as_bool, False, source.format(lines[1])),
        "vllm_tensor_parallel_size": Setting(("vllm_tensor_parallel_size",), as_int, 1, source.format(lines[2])),
        "vllm_gpu_memory_utilization": Setting(
            ("vllm_gpu_memory_utilization",), as_float, 0.3, source.format(lines[3])
        ),
        # Colocated vLLM keeps its weights and KV cache through the update unless told to sleep (#3968,
        # first in v0.23.0; no such switch before, so an older release never frees them).
        "vllm_enable_sleep_mode": Setting(("vllm_enable_sleep_mode",), as_bool, False, source.format(lines[4])),
    }


SHOWN = "--{key} (TRL's default for OWN: {value})"
RL_SETTINGS = {
    "grpo": _rl("grpo_config.py", (8, 474), (0.0, 671), (488, 577, 661, 646, 602)),
    "rloo": _rl("rloo_config.py", (2, 297), (0.05, 494), (311, 400, 484, 469, 425)),
}
TABLES = {
    own: Table(f"trl ({own})", {**COMMON_SETTINGS, **RL_SETTINGS.get(own, {})}, SHOWN.replace("OWN", own))
    for own in TRAINERS
}
"""TRL's own defaults per trainer, for TRL's own scripts (``trl grpo``, ``trl/scripts/grpo.py``) only."""

VOCABULARY = Vocabulary(
    NAME,
    {
        # The trainer run (trl grpo, examples/scripts/rloo.py): GRPOTrainer's loss_type runs DAPO and Dr.GRPO too.
        "grpo": GROUP_TASKS,
        "rloo": ("RLOO",),
        "ppo": ("PPO",),
        "online_dpo": ("Online-DPO",),
        "sft": ("SFT",),
        "dpo": ("DPO",),
    },
    naming="trl",
    # Its log-prob passes score without the entropy: _get_per_token_logps_and_entropies defaults
    # compute_entropy to False (grpo_trainer.py:1442) and only the loss asks for it (:3006); at
    # v0.17.0 _get_per_token_logps computes none at all (:814-836).
    pass_entropy=False,
    # use_vllm defaults to False (grpo_config.py:577): transformers' generate inside the trainer, no
    # engine.  Nothing is offloaded without a DeepSpeed or FSDP config (the reader marks an offload
    # it could not read as unknown, so this default stands only for a run that has none); the
    # reference model is then the trainer's own copy on its GPU (accelerator.prepare_model,
    # grpo_trainer.py:1139-1143; create_reference_model at v0.17.0:430).  GRPO pads its batch --
    # prompts on the left, completions on the right (grpo_trainer.py:2378-2396; at v0.17.0 the
    # tokenizer's padding=True, :918-919, and pad(), :967) -- and packs nothing, in every release.
    # Nor is anything sharded without such a config: accelerate launches DDP on several GPUs
    # (accelerate/commands/launch.py, _validate_launch_command), a whole copy of every state on each.
    defaults={
        "train_backend": "ddp",
        "param_offload": False,
        "optimizer_offload": False,
        "ref_param_offload": False,
        "remove_padding": False,
        "engine": "hf",
        # vLLM in the trainer's processes keeps its claim through the update unless told to sleep
        # (vllm_enable_sleep_mode, off by default and absent before v0.23.0).
        "free_cache_engine": RL_SETTINGS["grpo"]["vllm_enable_sleep_mode"].default,
    },
)
#: TRL's shipped accelerate configs by name (trl/cli/accelerate_config.py): their backend, known from the name.
NAMED_CONFIGS = {
    "zero1": "deepspeed",
    "zero2": "deepspeed",
    "zero3": "deepspeed",
    "fsdp1": "fsdp",
    "fsdp2": "fsdp",
    "multi_gpu": "ddp",
    "single_gpu": "single",
}


def claims(command: Command) -> bool:
    """``trl …`` commands, TRL's own scripts, and ``accelerate launch``/``python`` with TRL's trainer flags.

    vLLM's own ``vllm serve`` is not TRL's: a script that starts only that is no TRL run.
    """
    launch = parse(command)
    if launch is None:
        return False
    if launch.kind == "trl" or launch.trainer is not None or launch.script == TRL_SERVER:
        return True
    return bool((MARKERS - {"use_peft"}) & set(launch.args))


def read(command: Command, reading: Interpreter, path: str, code: trlcode.Code | None = None) -> Run:
    """The :class:`Run` of a script that starts a TRL trainer (and maybe its vLLM server).

    ``code`` is what the launched script's own code says (:mod:`.trlcode`), when the
    caller read it: ``command`` is then the trainer's launch, whatever its flags.
    """
    launches = [launch for c in reading.commands if (launch := parse(c)) is not None]
    on_server = code is not None and bool(code.trainer.server)  # a trainer that talks to `vllm serve` itself
    servers = [launch for launch in launches if launch.kind == "server" and (launch.script == TRL_SERVER or on_server)]
    # Beside a trl vllm-serve, any accelerate/python launch is the trainer that uses it.
    trainers = [launch for launch in launches if launch.kind != "server" and (servers or claims(launch.command))]
    trainer = parse(command) if code is not None else trainers[0] if trainers else None
    if trainer is None or trainer.kind == "server":
        first = parse(command)
        assert first is not None
        return _server_only(first, servers, reading, path)
    return _Reader(trainer, servers, reading, path, code).run()


class _Reader:
    def __init__(
        self, launch: Launch, servers: list[Launch], reading: Interpreter, path: str, code: trlcode.Code | None
    ) -> None:
        self.launch = launch
        self.servers = servers
        self.reading = reading
        self.path = path
        self.code = code
        self.config = self._trl_config()
        self.own = launch.trainer
        self.elided = elided(launch.command.fields)
        """``... # more args``: what the command does not show may be anything, so TRL's defaults are not taken."""
        self.problems: list[Problem] = []

    # -- values -----------------------------------------------------------------------------
    def get(self, name: str, convert: Callable[[str], T | None], own_default: bool = True) -> Found[T]:
        """A training argument from the command line, else the ``--config`` YAML, else TRL's default (own scripts)."""
        table = TABLES.get(self.own or "")
        if table is not None and name in table.settings:
            found: Found[T] = table.read(name, self._look_up, own_default and not self.elided)
            return found
        return self._look_up(name, convert)

    def _look_up(self, name: str, convert: Callable[[str], T | None]) -> Found[T]:
        flag = self.launch.args.get(name)
        if flag is not None:
            return from_override(flag.override(), convert)
        return self.config.get(name, UNKNOWN)

    def _trl_config(self) -> dict[str, Found[Any]]:
        """The scalar keys of ``trl grpo --config cfg.yaml`` (training and accelerate arguments alike)."""
        flag = self.launch.args.get("config") if self.launch.kind == "trl" else None
        document, file = self._yaml(flag)
        if document is None or not isinstance(document.value, dict):
            return {}
        found: dict[str, Found[Any]] = {}
        for key, value in document.value.items():
            if isinstance(value, (str, int, float, bool)):
                written = document.source.get((key,), str(value))
                text = str(value).lower() if isinstance(value, bool) else str(value)
                found[key] = Found(text, Origin.SET, document.mark((key,))[0], f"{key}: {written}", file)
        return {k: self._converted(v) for k, v in found.items()}

    @staticmethod
    def _converted(found: Found[Any]) -> Found[Any]:
        text = str(found.value)
        for convert in (as_int, as_float, as_bool):
            value = convert(text)
            if value is not None:
                return replace(found, value=value)
        return found

    def _yaml(self, flag: Flag | None) -> tuple[YamlDocument | None, str]:
        """The YAML a flag names, read through the caller's files when it is inside the repository."""
        files = self.reading.files
        if flag is None or flag.value is None or files is None:
            return None, ""
        for candidate in candidates(self.reading.path, flag.value, ""):
            text = files.read(candidate)
            if text is not None:
                try:
                    return load(text), candidate
                except YamlError:
                    return None, candidate
        return None, ""

    # -- the run ----------------------------------------------------------------------------
    def run(self) -> Run:
        trainer, nodes, backend, settings = self._trainer()
        zero = settings.zero_stage(self.reading.files) if settings and backend.value == "deepspeed" else UNKNOWN
        use_vllm = self._use_vllm()
        mode = self._mode(use_vllm)
        in_use = bool(use_vllm.value)
        colocated = when(mode, lambda m: m == "colocate", "vLLM in the trainer's processes") if in_use else UNKNOWN
        gpus, roles = self._total(trainer, nodes, mode if in_use else UNKNOWN)
        besides = [server.command for server in self.servers]  # the rollout's, counted already
        gpus, roles, _ = with_servers(self.reading, self.launch.command, gpus, roles, besides)
        per_node = accelerate.per_machine(trainer, nodes) if len(roles) == 1 else UNKNOWN
        lora = self._lora()
        beta = self.get("beta", as_float)
        params, optimizer = settings.offload() if settings is not None else (UNKNOWN, UNKNOWN)
        params, optimizer = self._unread_offload(params, backend), self._unread_offload(optimizer, backend)
        server = self.servers[0].args if self.servers and mode.value == "server" else {}
        run = Run(
            path=self.path,
            framework=NAME,
            entry_point=self.launch.script,
            launch_line=self.launch.command.line,
            gpus=gpus,
            nodes=nodes if len(roles) == 1 else UNKNOWN,
            gpus_per_node=per_node,
            roles=roles,
            colocated=colocated,
            train_backend=backend,
            train_tp=settings.parallel("tp") if settings is not None else UNKNOWN,
            train_cp=settings.parallel("cp") if settings is not None else UNKNOWN,
            ulysses_sp=settings.parallel("sp") if settings is not None else UNKNOWN,
            lora_rank=lora,
            model=self._model(mode),
            algorithm=self._algorithm(),
            use_kl=when(beta, lambda b: b != 0, "a reference model for beta != 0"),
            critic=Found(False, Origin.FRAMEWORK_DEFAULT, 0, "GRPO/RLOO have no critic")
            if self.own in RL_TRAINERS
            else UNKNOWN,
            response_length=self.get("max_completion_length", as_int),
            micro_batch_per_gpu=self.get("per_device_train_batch_size", as_int),
            rollout_n=self.get("num_generations", as_int),
            param_offload=params,
            optimizer_offload=optimizer,
            # The reference model goes through the same DeepSpeed or FSDP preparation as the trained one
            # (grpo_trainer.py:1139-1143 @f2cd577; prepare_deepspeed keeps the config's ZeRO-3 offload,
            # trl/models/utils.py:246-270).
            ref_param_offload=params,
            offload_mode=accelerate.host_offload(params, optimizer),
            zero_stage=zero,
            gradient_checkpointing=self.get("gradient_checkpointing", as_bool),
            param_dtype=self.get("dtype", as_lower),
            engine=self._engine(use_vllm) if self.rollout else UNKNOWN,
            rollout_tp=self._rollout("vllm_tensor_parallel_size", "tensor_parallel_size", mode, server, as_int),
            memory_fraction=self._rollout(
                "vllm_gpu_memory_utilization", "gpu_memory_utilization", mode, server, as_float
            ),
            free_cache_engine=self.get("vllm_enable_sleep_mode", as_bool) if mode.value == "colocate" else UNKNOWN,
            variables={name: value.value for name, value in self.reading.vars.items()},
        )
        problems = list(self.reading.problems)
        problems += self.problems + common_problems(run, self.reading)
        return replace(run, problems=tuple(problems))

    def _model(self, mode: Found[str]) -> Found[str]:
        """``--model_name_or_path``; unsaid, the model its vLLM server serves (TRL syncs the trained weights to it)."""
        found = self.get("model_name_or_path", as_model)
        if self.code is not None and not found.line:
            found = self.code.model_of(self.launch.args)
        if found.line or found.value is not None or mode.value != "server" or not self.servers:
            return found
        flag = self.servers[0].args.get("model")
        if flag is None:
            return found
        served = from_override(flag.override(), as_model)
        origin = Origin.DERIVED if served.origin is Origin.SET else served.origin
        name = self.servers[0].script or TRL_SERVER
        return Found(served.value, origin, served.line, f"{name} {served.written}", served.file)

    def _algorithm(self) -> Found[str]:
        if self.launch.kind == "trl" and self.own:
            return Found(self.own, Origin.SET, self.launch.command.line, f"trl {self.own}")
        if self.own:
            return Found(self.own, Origin.SET, self.launch.command.line, self.launch.script or "")
        if self.code is not None and self.code.trainer.name in VOCABULARY.tasks:
            written = f"{self.launch.script}: {self.code.config}"
            return Found(self.code.trainer.name, Origin.DERIVED, self.launch.command.line, written)
        return UNKNOWN

    @property
    def rollout(self) -> bool:
        """Whether the trainer generates (GRPO, RLOO, online DPO…), as far as the command tells: not for SFT, DPO."""
        if self.code is not None:
            return self.code.trainer.generates
        return self.own is None or self.own in RL_TRAINERS

    def _use_vllm(self) -> Found[bool]:
        """``--use_vllm``; unsaid, a ``--vllm_mode`` or a ``trl vllm-serve`` the script starts says vLLM is used."""
        if self.code is not None:  # the script's code decides, and whether the command's flag is the config's
            found = self.code.use_vllm(self.launch.args)
            return self._served() if found.value is None and self.servers else found
        found = self.get("use_vllm", as_bool, own_default=self.own in RL_TRAINERS)
        if found.line or (found.value is not None and found.origin is not Origin.FRAMEWORK_DEFAULT):
            return found
        mode = self.get("vllm_mode", as_lower, own_default=False)
        if mode.value is not None:
            return Found(True, Origin.DERIVED, mode.line, f"{mode.written} (vLLM in use)", mode.file)
        return self._served() if self.servers else found

    def _served(self) -> Found[bool]:
        server = self.servers[0]
        return Found(True, Origin.DERIVED, server.command.line, f"the script starts {server.script}")

    def _lora(self) -> Found[int]:
        """``--lora_r`` with ``--use_peft`` (ModelConfig: 16, model_config.py:107); 0 without, for TRL's scripts."""
        peft = self.get("use_peft", as_bool)
        if peft.value:
            rank = self.get("lora_r", as_int, own_default=False)
            return rank if rank.line or rank.value is not None else default(16, "--lora_r (TRL's default: 16)")
        if peft.value is False:
            return Found(0, peft.origin, peft.line, peft.written or "no --use_peft", peft.file)
        return Found(None, peft.origin, peft.line, peft.written, peft.file) if peft.line else UNKNOWN

    def _engine(self, use_vllm: Found[bool]) -> Found[str]:
        if use_vllm.value:
            return Found("vllm", use_vllm.origin, use_vllm.line, use_vllm.written, use_vllm.file)
        if use_vllm.value is False:
            said = use_vllm.written if self.code else "no --use_vllm"
            why = f"transformers' generate ({said})"
            return Found("hf", use_vllm.origin, use_vllm.line, why, use_vllm.file)
        return Found(None, use_vllm.origin, use_vllm.line, use_vllm.written) if use_vllm.line else UNKNOWN

    def _mode(self, use_vllm: Found[bool]) -> Found[str]:
        """``--vllm_mode``; unsaid, a server the script starts means server mode, else TRL's default, colocate.

        (grpo_config.py:584 @f2cd577; TRL before 1.0 defaulted to server, so a script
        that starts its own ``trl vllm-serve`` is read as such.)  The default is TRL's
        scripts' only: an example or a user's script may choose its mode in code.
        """
        if self.code is not None and self.code.trainer.server:
            written = f"{self.code.config}: a vLLM server at vllm_server_base_url ({self.code.trainer.server})"
            return Found("server", Origin.FRAMEWORK_DEFAULT, 0, written)
        found = self.get("vllm_mode", as_lower, own_default=False)
        if found.line or found.value is not None:
            return found
        if self.servers:
            server = self.servers[0]
            return Found("server", Origin.DERIVED, server.command.line, f"the script starts {server.script}")
        if use_vllm.value and self.own is not None and not self.elided:
            return default("colocate", "--vllm_mode (TRL's default: colocate)")
        return UNKNOWN

    def _rollout(
        self, name: str, server_name: str, mode: Found[str], server: dict[str, Flag], convert: Callable[[str], T | None]
    ) -> Found[T]:
        if mode.value == "colocate":
            return self.get(name, convert)
        if mode.value == "server" and server:
            flag = server.get(server_name)
            if flag is not None:
                return from_override(flag.override(), convert)
            # trl/scripts/vllm_serve.py:229, 248; vLLM's own EngineArgs default the same (1, 0.9)
            fallback = {"tensor_parallel_size": 1, "gpu_memory_utilization": 0.9}
            name = self.servers[0].script or TRL_SERVER
            flag_name = server_name if name == TRL_SERVER else server_name.replace("_", "-")
            whose = "TRL's" if name == TRL_SERVER else "vLLM's"
            return default(fallback[server_name], f"{name} --{flag_name} ({whose} default)")  # type: ignore[arg-type]
        return UNKNOWN

    def _trainer(self) -> tuple[Found[int], Found[int], Found[str], accelerate.Settings | None]:
        """The trainer's processes, its machines, its backend and the accelerate config read (if any)."""
        launch = self.launch
        own = launch.launcher
        pinned = visible_devices(launch.command)
        if launch.kind == "python":
            if pinned is not None and pinned.value == 1:
                return (
                    pinned,
                    default(1, "one process"),
                    Found("single", Origin.DERIVED, pinned.line, pinned.written),
                    None,
                )
            return (
                pinned
                or Found(None, Origin.RUNTIME, launch.command.line, "every visible GPU (Trainer's DataParallel)"),
                UNKNOWN,
                UNKNOWN,
                None,
            )
        settings, config_line = self._accelerate_config()
        processes = _int_flag(own.get("num_processes"))
        if processes is None and "num_processes" in self.config:
            processes = self.config["num_processes"]
        machines = _int_flag(own.get("num_machines"))
        if machines is None and "num_machines" in self.config:
            machines = self.config["num_machines"]
        backend = self._cli_backend()
        if settings is not None:
            processes = processes or settings.processes()
            machines = machines or settings.machines()
            backend = backend or settings.backend()
        elif config_line is not None:  # named, but not readable here
            processes = processes or Found(None, Origin.RUNTIME, config_line.line, config_line.raw, config_line.file)
            machines = machines or Found(None, Origin.RUNTIME, config_line.line, config_line.raw, config_line.file)
            backend = backend or self._named_backend(config_line)
        else:  # no config: accelerate's default config file, else every visible GPU
            if processes is None and pinned is not None:
                processes = pinned
            processes = processes or Found(None, Origin.RUNTIME, launch.command.line, "accelerate's default config")
            machines = machines or Found(None, Origin.RUNTIME, launch.command.line, "accelerate's default config")
            backend = backend or Found(None, Origin.RUNTIME, launch.command.line, "accelerate's default config")
        return processes, machines, backend, settings

    def _unread_offload(self, found: Found[bool], backend: Found[str]) -> Found[bool]:
        """An offload not found, as said where this reader cannot look -- unless no DeepSpeed or FSDP
        config could set it (one process, DDP, ``python`` without ``--deepspeed``): TRL's default holds."""
        if found.value is not None or found.line:
            return found
        plain = backend.value in ("single", "ddp") or (self.launch.kind == "python" and backend.value is None)
        if plain and not self.get("deepspeed", str).line:
            return found
        line = backend.line or self.launch.command.line
        return Found(None, Origin.RUNTIME, line, "offload: in a DeepSpeed or FSDP config not read here")

    def _accelerate_config(self) -> tuple[accelerate.Settings | None, Flag | None]:
        flag = self.launch.launcher.get("config_file") or self.launch.launcher.get("accelerate_config")
        if flag is None and "accelerate_config" in self.config:
            found = self.config["accelerate_config"]
            flag = Flag("accelerate_config", str(found.value), found.written, found.line, "set", found.file)
        if flag is None:
            return None, None
        value = flag.value or ""
        named = flag.name == "accelerate_config" and value in NAMED_CONFIGS
        path = posixpath.join("trl/accelerate_configs", value + ".yaml") if named else value
        document, file = self._yaml(replace(flag, value=path))
        if document is None or not accelerate.claims(document):
            return None, flag
        return accelerate.Settings(document, file), flag

    def _named_backend(self, flag: Flag) -> Found[str]:
        if flag.name == "accelerate_config" and flag.value in NAMED_CONFIGS:
            return Found(NAMED_CONFIGS[flag.value], Origin.DERIVED, flag.line, f"TRL's {flag.value} config", flag.file)
        return Found(None, Origin.RUNTIME, flag.line, flag.raw, flag.file)

    def _cli_backend(self) -> Found[str] | None:
        for name, backend in (("use_deepspeed", "deepspeed"), ("use_fsdp", "fsdp"), ("multi_gpu", "ddp")):
            flag = self.launch.launcher.get(name)
            if flag is not None:
                return Found(backend, Origin.SET, flag.line, flag.raw, flag.file)
        return None

    def _total(self, trainer: Found[int], nodes: Found[int], mode: Found[str]) -> tuple[Found[int], tuple[Role, ...]]:
        """The trainer's GPUs, plus the vLLM server's in server mode (the devices named, when all are pinned)."""
        roles: list[Role] = [Role("trainer", trainer, nodes, accelerate.per_machine(trainer, nodes))]
        if mode.value != "server":
            if mode.value is None and mode.line:
                return Found(None, Origin.RUNTIME, mode.line, mode.written), tuple(roles)
            return trainer, tuple(roles)
        if not self.servers:
            roles.append(Role("rollout", Found(None, Origin.RUNTIME, mode.line, "a vLLM server started elsewhere")))
            return Found(None, Origin.RUNTIME, mode.line, "trainer + a vLLM server started elsewhere"), tuple(roles)
        parts = [trainer]
        for server in self.servers:
            gpus = _server_gpus(server)
            roles.append(Role("rollout", gpus))
            parts.append(gpus)
        devices = [_device_ids(launch.command) for launch in [self.launch, *self.servers]]
        if all(ids is not None for ids in devices):
            union = set().union(*(ids for ids in devices if ids is not None))
            return derived(len(union), parts, f"devices {','.join(sorted(union))}"), tuple(roles)
        value = sum(p.value for p in parts if p.value is not None) if all(p.value is not None for p in parts) else None
        return derived(value, parts, " + ".join(f"{p.value}" for p in parts)), tuple(roles)


def _int_flag(flag: Flag | None) -> Found[int] | None:
    return from_override(flag.override(), as_int) if flag is not None else None


def _device_ids(command: Command) -> set[str] | None:
    for name, field in command.prefix:
        if name == "CUDA_VISIBLE_DEVICES" and field.value is not None:
            return {part.strip() for part in field.value.split(",") if part.strip()}
    return None


def _server_gpus(server: Launch) -> Found[int]:
    """A vLLM server's GPUs: its visible devices, else ``tensor_parallel_size × data_parallel_size`` (1 × 1)."""
    pinned = visible_devices(server.command)
    if pinned is not None:
        return pinned
    sizes = []
    for name in ("tensor_parallel_size", "data_parallel_size"):
        flag = server.args.get(name)
        sizes.append(
            from_override(flag.override(), as_int)
            if flag is not None
            else default(1, f"--{name} (the server's default: 1)")
        )
    return derived(product(sizes[0], sizes[1]), sizes, f"{server.script} TP {sizes[0].value} × DP {sizes[1].value}")


def read_offline(command: Command, reading: Interpreter, path: str, engine: trlcode.Offline) -> Run:
    """A script that generates with vLLM's offline ``LLM(…)`` and trains nothing: the engine's GPUs are the run's.

    One engine of ``tensor_parallel_size`` GPUs (``LLM()`` starts no data-parallel copies);
    each argument is read as the call gives it -- the script's own flag as the command
    passes it, else the flag's default (an ``argparse`` default, a dataclass field's) --
    and vLLM's default where the call leaves it out.
    """
    launch = parse(command)
    args = launch.args if launch is not None else {}
    tp = engine.value("tensor_parallel_size", args, as_int)
    gpus = derived(tp.value, [tp], f"one vLLM engine of tensor_parallel_size {tp.value}")
    return Run(
        path=path,
        framework=NAME,
        entry_point=launch.script if launch is not None else None,
        launch_line=command.line,
        gpus=gpus,
        roles=(Role("rollout", gpus),),
        engine=Found("vllm", Origin.SET, engine.line, "vllm.LLM(...) in the script's code"),
        model=engine.value("model", args, as_model),
        rollout_tp=tp,
        memory_fraction=engine.value("gpu_memory_utilization", args, as_float),
        variables={name: value.value for name, value in reading.vars.items()},
        problems=tuple(reading.problems),
    )


def _server_only(first: Launch, servers: list[Launch], reading: Interpreter, path: str) -> Run:
    """A script that only starts ``trl vllm-serve``: its GPUs are a role; the run's total is not in it."""
    roles = tuple(Role("rollout", _server_gpus(server)) for server in servers)
    model = first.args.get("model")
    return Run(
        path=path,
        framework=NAME,
        entry_point="trl vllm-serve",
        launch_line=first.command.line,
        roles=roles,
        engine=Found("vllm", Origin.SET, first.command.line, "trl vllm-serve"),
        model=from_override(model.override(), as_model) if model is not None else UNKNOWN,
        problems=tuple(reading.problems),
    )


__all__ = ["NAME", "claims", "parse", "read", "read_offline"]
