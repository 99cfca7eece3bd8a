"""verl and verl-recipe: Hydra ``key=value`` overrides on ``python3 -m verl.trainer.main_ppo`` (or a recipe's trainer).

Both config layouts are read: the legacy one, where Megatron is its own config
(``--config-name=ppo_megatron_trainer``), and the current one, where a top-level
``model_engine=megatron`` (or ``actor@actor_rollout_ref.actor=mlite_actor``) picks the
engine.  verl's own defaults (``verl/trainer/config/ppo_trainer.yaml`` and its
``actor``, ``rollout``, ``engine`` and ``data`` groups, at verl-project/verl@1dda039)
apply only when the script runs verl's own trainer with a stock config; a recipe brings
its own config, whose defaults are not read, so what its script does not say is unknown.
Deprecated keys are read, and reported (verl's ``examples/README.md`` lists them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sphinx_rlresources.scripts.frameworks.base import (
    LookUp,
    Setting,
    Table,
    added,
    as_bool,
    as_float,
    as_int,
    as_lower,
    as_text,
    default,
    deprecated,
    derived,
    either,
    first,
    from_override,
    module_after,
    offload_mode,
    product,
)
from sphinx_rlresources.scripts.frameworks.sanity import duplicate_problems, launch_problems
from sphinx_rlresources.scripts.frameworks.verlconfig import Chain, config_chain, foreign_pool
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.hydra import read_hydra
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run
from sphinx_rlresources.scripts.settings import STOCK_CONFIGS, STOCK_ENTRY_POINTS, Override, ScriptSettings

NAME = "verl"
VOCABULARY = Vocabulary(
    NAME,
    {
        # algorithm.adv_estimator (verl/trainer/ppo/core_algos.py): DAPO, Dr.GRPO and GSPO are GRPO's
        # group-relative advantage with other loss settings, so verl runs them with adv_estimator=grpo.
        "gae": ("PPO",),
        "grpo": GROUP_TASKS,
        "grpo_passk": ("GRPO-passk",),
        "reinforce_plus_plus": ("REINFORCE++",),
        "reinforce_plus_plus_baseline": ("REINFORCE++-baseline",),
        "rloo": ("RLOO",),
        "remax": ("ReMax",),
        "opo": ("OPO",),
        "gpg": ("GPG",),
    },
    naming="verl",
    fsdp_param_bytes=4,  # the FSDP actor keeps fp32 parameters (torch_dtype=float32 for the actor)
    offload_mode="phase",  # load_fsdp_model_to_gpu / load_fsdp_optimizer around each phase
    memory_fraction=0.5,  # actor_rollout_ref.rollout.gpu_memory_utilization's default
    # verl/trainer/config/_generated_ppo_trainer.yaml: actor and ref fsdp_config param_offload: false,
    # optimizer_offload: false (the reader's own defaults below say the same for a script).
    defaults={"param_offload": False, "optimizer_offload": False, "ref_param_offload": False},
    to_backend={
        "megatron": "run it with --config-name=ppo_megatron_trainer or actor_rollout_ref.actor.strategy=megatron"
    },
    from_backend={"megatron": "drop its megatron config"},
)
A = "actor_rollout_ref.actor"
R = "actor_rollout_ref.rollout"
M = "actor_rollout_ref.model"
SUGGESTED = (
    "micro_batch_per_gpu",
    "log_prob_micro_batch_per_gpu",
    "max_token_len_per_gpu",
    "gradient_checkpointing",
    "ulysses_sp",
    "rollout_tp",
    "memory_fraction",
    "free_cache_engine",
    "gpus_per_node",
    "nodes",
)
"""The :data:`TABLE` settings ``estimate --suggest`` may write, each to the key the reader reads it from."""
CRITIC_KEYS = {
    "micro_batch_per_gpu": "critic.ppo_micro_batch_size_per_gpu",
    "max_token_len_per_gpu": "critic.ppo_max_token_len_per_gpu",
}
REF_KEYS = {
    "log_prob_micro_batch_per_gpu": "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
    "max_token_len_per_gpu": "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu",
}
ALSO: dict[str, tuple[str, ...]] = {"max_token_len_per_gpu": (f"{R}.log_prob_max_token_len_per_gpu",)}
"""Keys that take the same value for the passes the reader reads only once: the estimator counts one
micro-batch (or token budget) for the actor's, the critic's (:data:`CRITIC_KEYS`, with a critic) and
the reference's passes (:data:`REF_KEYS`, with a reference model of its own)."""
VERL_KEYS = (
    "actor_rollout_ref.",
    "algorithm.adv_estimator=",
    "trainer.n_gpus_per_node=",
    "trainer.nnodes=",
    "critic.",
    "reward_model.",
    "custom_reward_function.",
)
"""Overrides only verl's config has: a command passing one is a verl launch whatever its file is called."""
FOREIGN = ("skyrl", "openrlhf", "slime", "nemo_rl", "trl", "open_instruct", "roll", "areal", "examples.")
"""Module prefixes of other frameworks' trainers (``examples.`` is SkyRL's)."""
STOCK_NAME = re.compile(r"ppo_(megatron_)?trainer")

#: Deprecated key -> what to do (verl-project/verl@1dda039 examples/README.md:84-95 and config comments).
DEPRECATED = {
    f"{A}.ppo_micro_batch_size": f"use {A}.ppo_micro_batch_size_per_gpu",
    f"{R}.log_prob_micro_batch_size": f"use {R}.log_prob_micro_batch_size_per_gpu",
    "actor_rollout_ref.ref.log_prob_micro_batch_size": "use actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
    "critic.ppo_micro_batch_size": "use critic.ppo_micro_batch_size_per_gpu",
    "critic.forward_micro_batch_size": "use critic.forward_micro_batch_size_per_gpu",
    f"{A}.ulysses_sequence_parallel_size": f"use {A}.fsdp_config.ulysses_sequence_parallel_size",
    "data.val_batch_size": "verl ignores it, so delete it",  # verl/utils/config.py warns so; nothing replaced it
}
#: verl's flattened configs at verl-project/verl@1dda039 (the stock trainer's and its Megatron twin's).
_FSDP = "verl/trainer/config/_generated_ppo_trainer.yaml@1dda039:"
_MEGATRON = "verl/trainer/config/_generated_ppo_megatron_trainer.yaml@1dda039:"
TABLE = Table(
    "verl",
    {
        "gpus_per_node": Setting(("trainer.n_gpus_per_node",), as_int, 8, _FSDP + "965"),
        "nodes": Setting(("trainer.nnodes",), as_int, 1, _FSDP + "964"),
        "algorithm": Setting(("algorithm.adv_estimator",), as_lower, "gae", _FSDP + "864"),
        "rollout_n": Setting((f"{R}.n",), as_int, 1, "verl/trainer/config/rollout/rollout.yaml@1dda039:127"),
        "micro_batch_per_gpu": Setting((f"{A}.ppo_micro_batch_size_per_gpu",), as_int),
        "log_prob_micro_batch_per_gpu": Setting((f"{R}.log_prob_micro_batch_size_per_gpu",), as_int),
        "param_offload": Setting((f"{A}.fsdp_config.param_offload",), as_bool, False, _FSDP + "31"),
        "param_offload (megatron)": Setting((f"{A}.megatron.param_offload",), as_bool, False, _MEGATRON + "47"),
        "optimizer_offload": Setting((f"{A}.fsdp_config.optimizer_offload",), as_bool, False, _FSDP + "32"),
        "optimizer_offload (megatron)": Setting((f"{A}.megatron.optimizer_offload",), as_bool, False, _MEGATRON + "49"),
        # Megatron Core's OptimizerConfig.optimizer_cpu_offload: Adam's states and step on the host
        "cpu_optimizer (megatron)": Setting(
            (f"{A}.optim.override_optimizer_config.optimizer_cpu_offload",),
            as_bool,
            False,
            "verl/trainer/config/_generated_ppo_megatron_trainer.yaml@b178a3c:28",
        ),
        "ref_param_offload": Setting(
            ("actor_rollout_ref.ref.fsdp_config.param_offload",), as_bool, False, _FSDP + "246"
        ),
        "ref_param_offload (megatron)": Setting(
            ("actor_rollout_ref.ref.megatron.param_offload",), as_bool, False, _MEGATRON + "265"
        ),
        "offload_policy": Setting((f"{A}.fsdp_config.offload_policy",), as_bool, False, _FSDP + "33"),
        "use_kl_loss": Setting((f"{A}.use_kl_loss",), as_bool, False, _FSDP + "105"),
        "use_kl_in_reward": Setting(("algorithm.use_kl_in_reward",), as_bool, False, _FSDP + "872"),
        "critic": Setting(("critic.enable",), as_bool),
        "train_tp": Setting((f"{A}.megatron.tensor_model_parallel_size",), as_int, 1, _MEGATRON + "50"),
        "train_pp": Setting((f"{A}.megatron.pipeline_model_parallel_size",), as_int, 1, _MEGATRON + "53"),
        "train_ep": Setting((f"{A}.megatron.expert_model_parallel_size",), as_int, 1, _MEGATRON + "51"),
        "train_cp": Setting((f"{A}.megatron.context_parallel_size",), as_int, 1, _MEGATRON + "55"),
        "ulysses_sp": Setting((f"{A}.fsdp_config.ulysses_sequence_parallel_size",), as_int, 1, _FSDP + "41"),
        "lora_targets": Setting((f"{M}.target_modules",), as_text),
        "model": Setting((f"{M}.path",), as_text),
        "dynamic_sampling": Setting(("algorithm.filter_groups.enable",), as_bool),  # DAPO's (recipe/dapo)
        "prompt_length": Setting(("data.max_prompt_length",), as_int, 512, _FSDP + "509"),
        "response_length": Setting(("data.max_response_length",), as_int, 512, _FSDP + "510"),
        "train_batch_size": Setting(("data.train_batch_size",), as_int, 1024, _FSDP + "511"),
        "mini_batch_size": Setting((f"{A}.ppo_mini_batch_size",), as_int, 256, _FSDP + "79"),
        "dynamic_batch": Setting((f"{A}.use_dynamic_bsz",), as_bool, False, _FSDP + "82"),
        "max_token_len_per_gpu": Setting((f"{A}.ppo_max_token_len_per_gpu",), as_int, 16384, _FSDP + "83"),
        "gradient_checkpointing": Setting((f"{M}.enable_gradient_checkpointing",), as_bool, True, _FSDP + "449"),
        "entropy_checkpointing": Setting((f"{A}.entropy_checkpointing",), as_bool, False, _FSDP + "184"),
        # Only as written: verl's defaults for these changed between releases (entropy_coeff 0.001 -> 0,
        # use_remove_padding false -> true), so a silent script leaves them to the estimator's
        # least-memory assumption instead of today's default.
        "remove_padding": Setting((f"{M}.use_remove_padding",), as_bool),
        "entropy_coeff": Setting((f"{A}.entropy_coeff",), as_float),
        "entropy_chunking": Setting(
            (f"{A}.entropy_from_logits_with_chunking", "actor_rollout_ref.ref.entropy_from_logits_with_chunking"),
            as_bool,
        ),
        "fused_kernels": Setting((f"{M}.use_fused_kernels",), as_bool),
        "engine": Setting((f"{R}.name",), as_lower),
        "rollout_tp": Setting((f"{R}.tensor_model_parallel_size",), as_int, 2, _FSDP + "316"),
        "memory_fraction": Setting((f"{R}.gpu_memory_utilization",), as_float, 0.5, _FSDP + "311"),
        "free_cache_engine": Setting((f"{R}.free_cache_engine",), as_bool, True, _FSDP + "315"),
        # 1024 as this reader has long assumed; verl@1dda039 says 256 (rollout/rollout.yaml:84).
        "max_num_seqs": Setting((f"{R}.max_num_seqs",), as_int, 1024),
    },
    "{key}={value} (verl's default)",
)
PHASE = "verl's {} offload: states come back for their phase"
"""How verl's ``param_offload``/``optimizer_offload`` work, for its FSDP or its Megatron backend."""
ENGINES = {"dp": "fsdp", "megatron": "megatron", "torchtitan": "torchtitan", "veomni": "veomni"}


def claims(command: Command) -> bool:
    """verl's trainers and recipes; a trainer of unknown name passing verl's own override groups or config."""
    module, _after = module_after(command)
    if module is not None:
        if module.startswith(("verl.", "recipe.", "verl/", "recipe/")):
            return True
        if not module.endswith(".py") or module.startswith(FOREIGN):
            return False  # another framework's module (skyrl.train..., openrlhf.cli...)
    values = [field.value if field.value is not None else field.word.raw for field in command.fields]
    if any(v.startswith(VERL_KEYS) for v in values):
        return True
    return any(
        (v.startswith("--config-name") and STOCK_NAME.search(v)) or v in ("--config-name", "-cn") for v in values
    ) and any("=" in v and "." in v.split("=", 1)[0] for v in values)


def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of a verl launch command."""
    s = read_hydra(reading, command)
    recipe = bool(s.entry_point and s.entry_point.startswith("recipe.")) or any(
        "recipe/" in (f.value or "") for f in command.fields if (f.value or "").startswith("--config-path")
    )
    chain = config_chain(command, s, reading.files)
    return _Reader(s, reading, path, "verl-recipe" if recipe else NAME, chain).run()


class _Reader:
    def __init__(self, s: ScriptSettings, reading: Interpreter, path: str, framework: str, chain: Chain) -> None:
        self.s = s
        self.reading = reading
        self.path = path
        self.framework = framework
        self.chain = chain
        self.stock = s.stock_config or chain.stock is not None

    def written(self, key: str) -> Override | None:
        """A key as the script writes it, else as the config it runs with sets it (its file and line)."""
        return self.s.overrides.get(key) or self.chain.layer.get(key)

    def get(self, name: str, look_up: LookUp | None = None) -> Found[Any]:
        """A setting of :data:`TABLE` as written (by the script or its config), else verl's default.

        The default holds only when the config inherits verl's own; ``look_up`` reads another
        way than :meth:`written` (:meth:`in_script`: the script's own overrides only).
        """
        return TABLE.read(name, look_up or self.look_up, self.stock)

    def look_up(self, key: str, convert: Callable[[str], Any]) -> Found[Any]:
        return from_override(self.written(key), convert)

    def in_script(self, key: str, convert: Callable[[str], Any]) -> Found[Any]:
        return from_override(self.s.overrides.get(key), convert)

    def run(self) -> Run:
        per_node = self.get("gpus_per_node")
        nodes = self.get("nodes")
        trainer_gpus = derived(
            product(per_node, nodes),
            [per_node, nodes],
            f"trainer.n_gpus_per_node={per_node.value} × trainer.nnodes={nodes.value}",
        )
        roles, gpus = self._pools(trainer_gpus, per_node, nodes)
        foreign = foreign_pool(self.s.overrides, self.chain.layer)
        if foreign is not None:  # the recipe's own pools: no headline count is the whole run's
            said: Found[int] = Found(None, Origin.UNKNOWN, foreign.line, f"{foreign.shown}: its own pool", foreign.file)
            gpus, nodes, per_node = said, said, said
        algorithm = self.get("algorithm")
        lora = self._lora()
        rollout_n = self.get("rollout_n")
        micro = self._micro("micro_batch_per_gpu", f"{A}.ppo_micro_batch_size", gpus)
        log_prob = self._micro("log_prob_micro_batch_per_gpu", f"{R}.log_prob_micro_batch_size", gpus)
        backend = self._backend()
        engine_config = " (megatron)" if backend.value == "megatron" else ""
        param_offload = self.get(f"param_offload{engine_config}")
        optimizer_offload = self.get(f"optimizer_offload{engine_config}")
        cpu_optimizer = self.get("cpu_optimizer (megatron)") if engine_config else UNKNOWN
        if cpu_optimizer.value:
            optimizer_offload = cpu_optimizer
        policy = self.get("offload_policy")
        phase = PHASE.format("Megatron" if engine_config else "FSDP")
        use_kl = either(
            self.get("use_kl_loss"),
            self.get("use_kl_in_reward"),
        )
        critic = self.get("critic")
        if critic.value is None and algorithm.value is not None:
            critic = derived(algorithm.value == "gae", [algorithm], "a critic for GAE (algorithm.adv_estimator)")
        problems = self._problems() + launch_problems(algorithm, rollout_n, self.s.trainer_line, self.reading, self.s)
        return Run(
            path=self.path,
            framework=self.framework,
            entry_point=self.s.entry_point,
            launch_line=self.s.trainer_line,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=roles,
            colocated=default(True, "verl's hybrid engine (actor, rollout and reference share the GPUs)"),
            train_backend=backend,
            train_tp=self.get("train_tp"),
            train_pp=self.get("train_pp"),
            train_ep=self.get("train_ep"),
            train_cp=self.get("train_cp"),
            ulysses_sp=first(
                # the deprecated spelling, still read, and first as verl reads it
                from_override(self.written(f"{A}.ulysses_sequence_parallel_size"), as_int),
                self.get("ulysses_sp"),
            ),
            lora_rank=lora,
            lora_targets=self.get("lora_targets"),
            model=self.get("model"),
            algorithm=algorithm,
            dynamic_sampling=self.get("dynamic_sampling"),
            use_kl=use_kl,
            critic=critic,
            prompt_length=self.get("prompt_length"),
            response_length=self.get("response_length"),
            train_batch_size=self.get("train_batch_size"),
            mini_batch_size=self.get("mini_batch_size"),
            micro_batch_per_gpu=micro,
            log_prob_micro_batch_per_gpu=log_prob,
            dynamic_batch=self.get("dynamic_batch"),
            max_token_len_per_gpu=self.get("max_token_len_per_gpu"),
            rollout_n=rollout_n,
            param_offload=param_offload,
            optimizer_offload=optimizer_offload,
            ref_param_offload=self.get(f"ref_param_offload{engine_config}"),
            offload_mode=offload_mode(
                ("compute", "Megatron's CPU optimizer: the step runs on the host", cpu_optimizer),
                ("compute", "", policy),
                ("phase", phase, param_offload),
                ("phase", phase, optimizer_offload),
            ),
            gradient_checkpointing=self.get("gradient_checkpointing"),
            entropy_checkpointing=self.get("entropy_checkpointing"),
            remove_padding=self.get("remove_padding", self.in_script),
            update_entropy=self._entropy_bonus(),
            entropy_chunking=self.get("entropy_chunking", self.in_script),
            fused_kernels=self.get("fused_kernels", self.in_script),
            engine=self.get("engine"),
            rollout_tp=self.get("rollout_tp"),
            memory_fraction=self.get("memory_fraction"),
            free_cache_engine=self.get("free_cache_engine"),
            max_num_seqs=self.get("max_num_seqs"),
            deprecated=tuple(key for key in DEPRECATED if key in self.s.overrides),
            variables=self.s.variables,  # made for this reading by read_hydra: not shared
            problems=tuple(problems),
        )

    def _entropy_bonus(self) -> Found[bool]:
        """Whether the update computes the entropy: an ``entropy_coeff`` other than 0, as written."""
        coeff = self.get("entropy_coeff", self.in_script)
        value = None if coeff.value is None else coeff.value != 0
        return Found(value, coeff.origin, coeff.line, coeff.written, coeff.file)

    def _pools(
        self, trainer: Found[int], per_node: Found[int], nodes: Found[int]
    ) -> tuple[tuple[Role, ...], Found[int]]:
        """The trainer's GPUs plus any pool of its own: a reward model, a distillation teacher, an async rollout."""
        roles = [Role("trainer", trainer, nodes, per_node)]
        extra: list[tuple[str, str]] = []
        if as_bool(self.s.text("reward.reward_model.enable_resource_pool") or "") or as_bool(
            self.s.text("reward_model.enable_resource_pool") or ""
        ):
            extra.append(
                (
                    "reward",
                    "reward.reward_model" if "reward.reward_model.nnodes" in self.s.overrides else "reward_model",
                )
            )
        if as_bool(self.s.text("distillation.enabled") or ""):
            extra.append(("teacher", "distillation"))
        if "rollout.nnodes" in self.s.overrides:
            extra.append(("rollout", "rollout"))
        elif (as_int(self.s.text("actor_rollout_ref.rollout.nnodes") or "") or 0) > 0:
            extra.append(("rollout", R))
        total = trainer
        for role, prefix in extra:
            pool_nodes = from_override(self.s.overrides.get(f"{prefix}.nnodes"), as_int)
            pool_per_node = from_override(self.s.overrides.get(f"{prefix}.n_gpus_per_node"), as_int)
            pool = derived(product(pool_per_node, pool_nodes), [pool_per_node, pool_nodes], f"{prefix}.*")
            roles.append(Role(role, pool, pool_nodes, pool_per_node))
            written = f"{total.written} + {role} {pool_per_node.value} × {pool_nodes.value}"
            total = derived(added(total, pool), [total, pool], written)
        return tuple(roles), total

    def _backend(self) -> Found[str]:
        s = self.s
        engine = self.written("model_engine")
        if engine is not None:
            found = from_override(engine, as_lower)
            if found.value in ENGINES and found.value != "dp":
                return Found(ENGINES[found.value], found.origin, found.line, found.written)
        mlite = self.written("actor@actor_rollout_ref.actor")
        if mlite is not None and "mlite" in (mlite.value or ""):
            return Found("megatron", Origin.SET, mlite.line, mlite.raw)
        strategy = from_override(self.written("actor_rollout_ref.actor.strategy"), as_lower)
        if strategy.line:
            value = strategy.value
            backend = "fsdp" if value in ("fsdp", "fsdp2", "fsdp_turbo") else value if value == "megatron" else None
            return Found(backend, strategy.origin if backend else Origin.UNKNOWN, strategy.line, strategy.written)
        legacy = self.written("actor_rollout_ref.actor.model_engine")
        if legacy is not None and (legacy.value or "").strip("'\"").lower() == "megatron":
            return Found("megatron", Origin.SET, legacy.line, legacy.raw)
        if s.config_name is not None and "megatron" in s.config_name.lower():
            return Found("megatron", Origin.SET, s.config_name_line, f"--config-name={s.config_name}")
        if self.chain.stock is not None:
            backend = "megatron" if "megatron" in self.chain.stock else "fsdp"
            return default(backend, f"verl's {self.chain.stock} (by {self.chain.config}), no {A}.strategy")
        if self.stock:
            return default("fsdp", "verl's default config (no --config-name, no actor_rollout_ref.actor.strategy)")
        return UNKNOWN

    def _lora(self) -> Found[int]:
        rank = from_override(self.written("actor_rollout_ref.model.lora.rank"), as_int)
        if rank.value:
            return rank
        old = from_override(self.written("actor_rollout_ref.model.lora_rank"), as_int)
        adapter = self.written("actor_rollout_ref.model.lora_adapter_path")
        if adapter is not None and not old.value:
            return Found(None, Origin.RUNTIME, adapter.line, adapter.raw)  # LoRA, with the adapter's own rank
        if old.line:
            return old
        if rank.line:
            return rank
        return default(0, f"{M}.lora_rank=0 (verl's default: the whole model trains)") if self.stock else UNKNOWN

    def _micro(self, name: str, key: str, gpus: Found[int]) -> Found[int]:
        """The per-GPU micro-batch; the deprecated global one is divided by the GPUs, as verl does."""
        per_gpu = self.get(name)
        if per_gpu.line:
            return per_gpu
        total = from_override(self.s.overrides.get(key.removesuffix("_per_gpu")), as_int)
        if total.value is not None and gpus.value:
            return derived(max(total.value // gpus.value, 1), [total, gpus], f"{total.written} over {gpus.value} GPUs")
        return total if total.line else UNKNOWN

    def _problems(self) -> list[Problem]:
        found = list(self.s.problems)
        found += deprecated(DEPRECATED, self.s.overrides, "{key} is deprecated in verl; {advice}")
        found.extend(duplicate_problems(self.s))
        return found


def offload_names(backend: str | None) -> dict[str, str]:
    """The :data:`TABLE` settings that hold the actor's and the reference's offload for a backend."""
    twin = " (megatron)" if backend == "megatron" else ""
    return {name: f"{name}{twin}" for name in ("param_offload", "optimizer_offload", "ref_param_offload")}


def override_keys(run: Run) -> dict[str, tuple[str, ...]]:
    """Each setting a run of this adapter can be told, as the Hydra keys :data:`TABLE` reads it from.

    :data:`ALSO`, :data:`CRITIC_KEYS` and :data:`REF_KEYS` add the keys of the passes the
    reader reads only once, so one suggested value is written to each of them.
    """
    names = {name: name for name in SUGGESTED} | offload_names(run.train_backend.value)
    found = {name: (TABLE.settings[entry].keys[0], *ALSO.get(name, ())) for name, entry in names.items()}
    also = [CRITIC_KEYS] if run.critic.value else []
    if run.use_kl.value and not run.lora_rank.value:  # a reference model of its own
        also.append(REF_KEYS)
    for table in also:
        for name, key in table.items():
            found[name] = (*found[name], key)
    if run.train_backend.value == "megatron":
        del found["ulysses_sp"]  # Megatron splits sequences by its own context parallelism
    return found


__all__ = ["NAME", "STOCK_CONFIGS", "STOCK_ENTRY_POINTS", "claims", "read"]
