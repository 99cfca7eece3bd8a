"""SkyRL: dotted ``key=value`` overrides on ``uv run ... -m skyrl.train.entrypoints.main_base`` (and its kin).

SkyRL's config is a dataclass tree (NovaSky-AI/SkyRL@a956457 skyrl/train/config/config.py);
its defaults, cited by line below, apply to SkyRL's own entry points and to the
``examples.*.main_*`` ones, which only add fields to it.  Placement follows SkyRL's
trainer (skyrl/train/trainer.py:646-770): with ``colocate_all`` every model and the
inference engines share the policy's GPUs; without it the policy, a reference that is
not colocated with it, a critic (only when ``trainer.critic.model.path`` is set) and
the locally run engines each take GPUs of their own.  Engines run elsewhere
(``run_engines_locally=false``) count only when the script says how many there are.
The spelling before the ``skyrl-train`` package was folded in (``skyrl_train.*``,
``generator.num_inference_engines``...) is read too, and reported: SkyRL rejects it now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sphinx_rlresources.scripts.frameworks.base import (
    Setting,
    Table,
    as_bool,
    as_float,
    as_int,
    as_lower,
    as_text,
    default,
    deprecated,
    derived,
    either,
    from_override,
    module_after,
    product,
)
from sphinx_rlresources.scripts.frameworks.sanity import common_problems, duplicate_problems
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.hydra import read_hydra
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run
from sphinx_rlresources.scripts.settings import ScriptSettings

NAME = "skyrl"
VOCABULARY = Vocabulary(
    NAME,
    {
        # trainer.algorithm.advantage_estimator (skyrl-train's AdvantageEstimator at NovaSky-AI/SkyRL): DAPO
        # and Dr.GRPO are GRPO with other loss and sampling settings (docs/algorithms/dapo.rst).
        "gae": ("PPO",),
        "grpo": GROUP_TASKS,
        "rloo": ("RLOO",),
        "reinforce++": ("REINFORCE++",),
        "reinforce_plus_plus": ("REINFORCE++",),
        "sft": ("SFT",),
    },
    naming="skyrl",
    # Its log-prob passes score without the entropy: _forward_micro_batch calls the model without
    # compute_entropy (skyrl/backends/skyrl_train/workers/worker.py:1313-1331 @a956457), whose default
    # is False (workers/model_wrapper.py:247); only the update computes it.
    pass_entropy=False,
)
PL = "trainer.placement"
IE = "generator.inference_engine"
MC = "trainer.policy.megatron_config"
#: Keys only SkyRL spells this way: a command passing one is a SkyRL launch whatever runs it.
SIGNATURES = (
    f"{PL}.",
    f"{IE}.",
    "generator.num_inference_engines=",
    "generator.inference_engine_",
    "trainer.policy.model.",
)
MODULES = ("skyrl.train.", "skyrl_train.", "examples.train", "skyrl_agent.integrations.skyrl_train.")
ENGINE_ONLY = frozenset({"skyrl.train.entrypoints.serve", "skyrl.train.entrypoints.main_generate"})
SFT = frozenset({"skyrl.train.main_sft"})
#: Old spelling (skyrl-train's ppo_base_config.yaml, before 6dc221fc2) -> today's key.
LEGACY = {
    "generator.num_inference_engines": f"{IE}.num_engines",
    "generator.inference_engine_tensor_parallel_size": f"{IE}.tensor_parallel_size",
    "generator.inference_engine_pipeline_parallel_size": f"{IE}.pipeline_parallel_size",
    "generator.inference_engine_expert_parallel_size": f"{IE}.expert_parallel_size",
    "generator.inference_engine_data_parallel_size": f"{IE}.data_parallel_size",
    "generator.run_engines_locally": f"{IE}.run_engines_locally",
    "generator.backend": f"{IE}.backend",
    "generator.gpu_memory_utilization": f"{IE}.gpu_memory_utilization",
    "generator.max_num_seqs": f"{IE}.max_num_seqs",
    "generator.remote_inference_engine_urls": f"{IE}.external_server_urls",
}
#: Keys SkyRL refuses to start with today (config.py:1836-1868).
REMOVED = {
    f"{IE}.enable_http_endpoint": "SkyRL always uses the HTTP inference path",
    f"{IE}.override_existing_update_group": "update groups are managed by the vLLM inference path",
    f"{IE}.remote_urls": f"use {IE}.external_proxy_url and {IE}.external_server_urls",
}


def _spellings(key: str) -> tuple[str, ...]:
    return tuple(old for old, new in LEGACY.items() if new == key)


def _setting(key: str, convert: Callable[[str], Any], value: Any = None, line: str = "") -> Setting:
    """A key of SkyRL's config, read under its skyrl-train spelling too, its default cited by line."""
    return Setting((key,), convert, value, f"{CONFIG}:{line}" if line else "", _spellings(key))


#: The config tree of ``main_base`` and its kin, and the file its defaults are cited from.
CONFIG = "skyrl/train/config/config.py@a956457"
TABLE = Table(
    "skyrl",
    {
        "colocated": _setting(f"{PL}.colocate_all", as_bool, True, "586"),
        "colocate_policy_ref": _setting(f"{PL}.colocate_policy_ref", as_bool, True, "588"),
        "nodes": _setting(f"{PL}.policy_num_nodes", as_int, 1, "593"),
        "gpus_per_node": _setting(f"{PL}.policy_num_gpus_per_node", as_int, 1, "594"),
        "ref_nodes": _setting(f"{PL}.ref_num_nodes", as_int, 1, "597"),
        "ref_gpus_per_node": _setting(f"{PL}.ref_num_gpus_per_node", as_int, 1, "598"),
        "critic_nodes": _setting(f"{PL}.critic_num_nodes", as_int, 1, "595"),
        "critic_gpus_per_node": _setting(f"{PL}.critic_num_gpus_per_node", as_int, 1, "596"),
        "run_engines_locally": _setting(f"{IE}.run_engines_locally", as_bool, True, "1103"),
        "num_engines": _setting(f"{IE}.num_engines", as_int, 1, "1107"),
        "engine": _setting(f"{IE}.backend", as_lower, "vllm", "1109"),
        "rollout_tp": _setting(f"{IE}.tensor_parallel_size", as_int, 1, "1119"),
        "rollout_pp": _setting(f"{IE}.pipeline_parallel_size", as_int, 1, "1121"),
        "rollout_dp": _setting(f"{IE}.data_parallel_size", as_int, 1, "1127"),
        "memory_fraction": _setting(f"{IE}.gpu_memory_utilization", as_float, 0.8, "1154"),
        "max_num_seqs": _setting(f"{IE}.max_num_seqs", as_int, 1024, "1172"),
        "use_kl_loss": _setting("trainer.algorithm.use_kl_loss", as_bool, True, "833"),
        "use_kl_in_reward": _setting("trainer.algorithm.use_kl_in_reward", as_bool, False, "830"),
        "algorithm": _setting("trainer.algorithm.advantage_estimator", as_lower, "grpo", "823"),
        "train_backend": _setting("trainer.strategy", as_lower, "fsdp", "1344"),
        "train_tp": _setting(f"{MC}.tensor_model_parallel_size", as_int, 1, "449"),
        "train_pp": _setting(f"{MC}.pipeline_model_parallel_size", as_int, 1, "453"),
        "train_cp": _setting(f"{MC}.context_parallel_size", as_int, 1, "455"),
        "train_ep": _setting(f"{MC}.expert_model_parallel_size", as_int, 1, "457"),
        "ulysses_sp": _setting("trainer.policy.sequence_parallel_size", as_int, 1),
        "lora_rank": _setting("trainer.policy.model.lora.rank", as_int, 0, "100"),
        "lora_targets": _setting("trainer.policy.model.lora.target_modules", as_text),
        "model": _setting("trainer.policy.model.path", as_text, "Qwen/Qwen2.5-1.5B-Instruct", "608"),
        "prompt_length": _setting("trainer.max_prompt_length", as_int, 512, "1440"),
        "response_length": _setting("generator.sampling_params.max_generate_length", as_int, 1024, "999"),
        "train_batch_size": _setting("trainer.train_batch_size", as_int, 1024, "1390"),
        "mini_batch_size": _setting("trainer.policy_mini_batch_size", as_int, 256, "1396"),
        "micro_batch_per_gpu": _setting("trainer.micro_train_batch_size_per_gpu", as_int, 1, "1406"),
        "log_prob_micro_batch_per_gpu": _setting("trainer.micro_forward_batch_size_per_gpu", as_int, 1, "1409"),
        "max_token_len_per_gpu": _setting("trainer.max_tokens_per_microbatch", as_int, -1, "1412"),
        "rollout_n": _setting("generator.n_samples_per_prompt", as_int, 5, "1225"),
        "param_offload": _setting("trainer.policy.fsdp_config.cpu_offload", as_bool, False, "220"),
        "gradient_checkpointing": _setting("trainer.gradient_checkpointing", as_bool, True, "1353"),
        # packed micro-batches without their padding; skyrl-train spelled it use_sample_packing (true too)
        "remove_padding": Setting(
            ("trainer.remove_microbatch_padding",), as_bool, True, f"{CONFIG}:1431", ("trainer.use_sample_packing",)
        ),
    },
    "{key} (SkyRL's default)",
)
#: ``skyrl.train.main_sft``'s own config (skyrl/train/config/sft_config.py@a956457): top-level keys.
SFT_CONFIG = "skyrl/train/config/sft_config.py@a956457"
SFT_TABLE = Table(
    "skyrl (main_sft)",
    {
        "nodes": Setting(("placement.num_nodes",), as_int, 1, f"{SFT_CONFIG}:54"),
        "gpus_per_node": Setting(("placement.num_gpus_per_node",), as_int, 4, f"{SFT_CONFIG}:55"),
        "train_backend": Setting(("strategy",), as_lower, "megatron", f"{SFT_CONFIG}:152"),
        "train_tp": Setting(("megatron_config.tensor_model_parallel_size",), as_int, 1, f"{CONFIG}:449"),
        "train_pp": Setting(("megatron_config.pipeline_model_parallel_size",), as_int, 1, f"{CONFIG}:453"),
        "train_cp": Setting(("megatron_config.context_parallel_size",), as_int, 1, f"{CONFIG}:455"),
        "lora_rank": Setting(("model.lora.rank",), as_int, 0, f"{CONFIG}:100"),
        "model": Setting(("model.path",), as_text, "Qwen/Qwen3-0.6B", f"{SFT_CONFIG}:125"),
        "micro_batch_per_gpu": Setting(("micro_train_batch_size_per_gpu",), as_int),
    },
    "{key} (SkyRL's default)",
)


def claims(command: Command) -> bool:
    """SkyRL's entry points (``-m skyrl.train...``, ``examples.train...``), or any command passing SkyRL's own keys."""
    module, _index = module_after(command)
    if module and module.startswith(MODULES):
        return True
    return any((f.value or "").startswith(SIGNATURES) for f in command.fields)


def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of a SkyRL launch."""
    settings = read_hydra(reading, command)
    module, _index = module_after(command)
    return _Reader(settings, reading, path, module).run()


class _Reader:
    def __init__(self, s: ScriptSettings, reading: Interpreter, path: str, module: str | None) -> None:
        self.s = s
        self.reading = reading
        self.path = path
        self.module = module
        name = module or ""
        self.stock = name.startswith(("skyrl.train.", "skyrl_train.", "examples.")) or (
            name.endswith(".py") and name.startswith("examples/")
        )

    def get(self, name: str, table: Table = TABLE) -> Found[Any]:
        """A setting as written (today's spelling, else the old one), else SkyRL's default for its own entry points."""
        return table.read(name, self.look_up, self.stock)

    def look_up(self, key: str, convert: Callable[[str], Any]) -> Found[Any]:
        return from_override(self.s.overrides.get(key), convert)

    def run(self) -> Run:
        run = self._sft() if self.module in SFT else self._rl()
        run = replace(
            run,
            path=self.path,
            framework=NAME,
            entry_point=self.module,
            launch_line=self.s.trainer_line,
            variables=dict(self.s.variables),
            deprecated=tuple(k for k in LEGACY if k in self.s.overrides),
        )
        problems = self._problems() + common_problems(run, self.reading, self.s)
        return replace(run, problems=tuple(problems))

    # -- reinforcement learning (main_base and its kin) -------------------------------------------
    def _rl(self) -> Run:
        colocate = self.get("colocated")
        p_nodes = self.get("nodes")
        p_gpn = self.get("gpus_per_node")
        policy = derived(product(p_nodes, p_gpn), [p_nodes, p_gpn], "policy_num_nodes × policy_num_gpus_per_node")
        engines = self._engines()
        local = self.get("run_engines_locally")
        use_kl = either(
            self.get("use_kl_loss"),
            self.get("use_kl_in_reward"),
        )
        critic = self._critic()
        engine = self.get("engine")
        if self.module in ENGINE_ONLY:
            gpus, nodes, per_node = engines, UNKNOWN, UNKNOWN
            roles: tuple[Role, ...] = (Role("rollout", engines),)
            backend: Found[str] = UNKNOWN
        else:
            gpus, nodes, per_node, roles = self._placement(
                colocate, p_nodes, p_gpn, policy, engines, local, use_kl, critic
            )
            backend = self._backend()
        megatron = backend.value == "megatron"
        return Run(
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=roles,
            colocated=colocate if self.module not in ENGINE_ONLY else UNKNOWN,
            train_backend=backend,
            train_tp=self.get("train_tp") if megatron else UNKNOWN,
            train_pp=self.get("train_pp") if megatron else UNKNOWN,
            train_cp=self.get("train_cp") if megatron else UNKNOWN,
            train_ep=self.get("train_ep") if megatron else UNKNOWN,
            ulysses_sp=self.get("ulysses_sp") if not megatron else UNKNOWN,
            lora_rank=self.get("lora_rank"),
            lora_targets=self.get("lora_targets"),
            model=self.get("model"),
            algorithm=self.get("algorithm"),
            use_kl=use_kl,
            critic=critic,
            prompt_length=self.get("prompt_length"),
            response_length=self.get("response_length"),
            train_batch_size=self.get("train_batch_size"),
            mini_batch_size=self.get("mini_batch_size"),
            micro_batch_per_gpu=self.get("micro_batch_per_gpu"),
            log_prob_micro_batch_per_gpu=self.get("log_prob_micro_batch_per_gpu"),
            dynamic_batch=self._dynamic(),
            max_token_len_per_gpu=self._budget(),
            rollout_n=self.get("rollout_n"),
            param_offload=self.get("param_offload") if not megatron else UNKNOWN,
            gradient_checkpointing=self.get("gradient_checkpointing"),
            remove_padding=self.get("remove_padding"),
            engine=engine,
            rollout_tp=self.get("rollout_tp"),
            memory_fraction=self.get("memory_fraction"),
            max_num_seqs=self.get("max_num_seqs"),
        )

    def _engines(self) -> Found[int]:
        """num_engines × TP × PP × DP (trainer.py:657-663)."""
        parts = [
            self.get("num_engines"),
            self.get("rollout_tp"),
            self.get("rollout_pp"),
            self.get("rollout_dp"),
        ]
        total: int | None = 1
        for part in parts:
            total = total * part.value if total is not None and part.value is not None else None
        return derived(total, list(parts), "num_engines × tensor_parallel_size × pipeline × data parallel")

    def _placement(  # noqa: C901 - SkyRL's placement rules, one case each
        self,
        colocate: Found[bool],
        nodes: Found[int],
        per_node: Found[int],
        policy: Found[int],
        engines: Found[int],
        local: Found[bool],
        use_kl: Found[bool],
        critic: Found[bool],
    ) -> tuple[Found[int], Found[int], Found[int], tuple[Role, ...]]:
        """Every role's GPUs, and the run's: shared under ``colocate_all``, added up otherwise."""
        trainer = Role("trainer", policy, nodes, per_node)
        if colocate.value:
            roles = [trainer, Role("rollout", policy, nodes, per_node, "trainer")]
            if use_kl.value:
                roles.append(Role("reference", policy, nodes, per_node, "trainer"))
            if critic.value:
                roles.append(Role("critic", policy, nodes, per_node, "trainer"))
            return policy, nodes, per_node, tuple(roles)
        if colocate.value is None:
            return UNKNOWN, UNKNOWN, UNKNOWN, ()
        roles = [trainer]
        parts: list[Found[int]] = [policy]
        together = self.get("colocate_policy_ref")
        if use_kl.value is None or (use_kl.value and together.value is None):
            parts.append(Found(None, Origin.UNKNOWN, 0, "whether a reference model has GPUs of its own"))
        elif use_kl.value and together.value:
            roles.append(Role("reference", policy, nodes, per_node, "trainer"))
        elif use_kl.value:
            parts.append(self._pool("reference", "ref", roles))
        if critic.value is None:
            parts.append(Found(None, Origin.UNKNOWN, 0, "whether a critic is trained (trainer.critic.model.path)"))
        elif critic.value:
            parts.append(self._pool("critic", "critic", roles))
        if local.value:
            roles.append(Role("rollout", engines))
            parts.append(engines)
        else:
            parts.append(self._external(local, roles))
        total: int | None = 0
        for part in parts:
            total = total + part.value if total is not None and part.value is not None else None
        gpus = derived(total, parts, " + ".join(p.written or "?" for p in parts))
        return gpus, UNKNOWN, UNKNOWN, tuple(roles)

    def _pool(self, role: str, prefix: str, roles: list[Role]) -> Found[int]:
        pool_nodes = self.get(f"{prefix}_nodes")
        pool_gpn = self.get(f"{prefix}_gpus_per_node")
        pool = derived(product(pool_nodes, pool_gpn), [pool_nodes, pool_gpn], f"{prefix}_num_nodes × gpus per node")
        roles.append(Role(role, pool, pool_nodes, pool_gpn))
        return pool

    def _external(self, local: Found[bool], roles: list[Role]) -> Found[int]:
        """Engines run elsewhere: their GPUs are known only from what the script writes about them."""
        count = from_override(self.s.overrides.get(f"{IE}.num_engines"), as_int)
        tp = self.get("rollout_tp")
        external: Found[int]
        if local.value is None or count.value is None or tp.value is None:
            external = Found(None, Origin.UNKNOWN, local.line, "inference engines run outside this launch")
        else:
            external = derived(count.value * tp.value, [count, tp], "external engines: num_engines × TP")
        roles.append(Role("rollout", external))
        return external

    def _backend(self) -> Found[str]:
        found = self.get("train_backend")
        if found.value in ("fsdp", "fsdp2"):
            return replace(found, value="fsdp")  # "fsdp2" is today's "fsdp" (utils.py:274-280)
        if found.value == "megatron":
            return found
        return Found(None, Origin.UNKNOWN, found.line, found.written, found.file) if found.line else found

    def _critic(self) -> Found[bool]:
        """A critic iff ``trainer.critic.model.path`` is set (trainer.py:699,764; default None, config.py:649)."""
        found = self.s.overrides.get("trainer.critic.model.path")
        if found is None:
            return (
                default(False, "no trainer.critic.model.path (SkyRL's default: no critic)") if self.stock else UNKNOWN
            )
        path = from_override(found, as_text)
        if found.value is None:
            return Found(None, Origin.RUNTIME, found.line, found.raw, found.file)
        return Found(
            path.value is not None,
            path.origin if path.value is not None else Origin.SET,
            found.line,
            found.raw,
            found.file,
        )

    def _budget(self) -> Found[int]:
        """``max_tokens_per_microbatch`` packs micro-batches by tokens when > 0 (config.py:1412; -1: off)."""
        budget = self.get("max_token_len_per_gpu")
        return budget if budget.value is None or budget.value > 0 else UNKNOWN

    def _dynamic(self) -> Found[bool]:
        budget = self.get("max_token_len_per_gpu")
        if budget.value is None:
            return Found(None, budget.origin, budget.line, budget.written, budget.file)
        return Found(budget.value > 0, budget.origin, budget.line, budget.written, budget.file)

    # -- supervised fine-tuning (main_sft) -----------------------------------------------------------
    def _sft(self) -> Run:
        """``skyrl.train.main_sft``: top-level keys, ``placement.num_nodes × num_gpus_per_node`` (sft_config.py)."""
        nodes = self.get("nodes", SFT_TABLE)
        per_node = self.get("gpus_per_node", SFT_TABLE)
        gpus = derived(product(nodes, per_node), [nodes, per_node], "placement.num_nodes × num_gpus_per_node")
        strategy = self.get("train_backend", SFT_TABLE)
        backend = replace(strategy, value="fsdp") if strategy.value in ("fsdp", "fsdp2") else strategy
        megatron = backend.value == "megatron"
        return Run(
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=(Role("trainer", gpus, nodes, per_node),),
            train_backend=backend if backend.value in ("fsdp", "megatron") else UNKNOWN,
            train_tp=self.get("train_tp", SFT_TABLE) if megatron else UNKNOWN,
            train_pp=self.get("train_pp", SFT_TABLE) if megatron else UNKNOWN,
            train_cp=self.get("train_cp", SFT_TABLE) if megatron else UNKNOWN,
            lora_rank=self.get("lora_rank", SFT_TABLE),
            model=self.get("model", SFT_TABLE),
            algorithm=Found("sft", Origin.DERIVED, self.s.trainer_line, "skyrl.train.main_sft"),
            critic=Found(False, Origin.DERIVED, 0, "supervised fine-tuning has no critic"),
            micro_batch_per_gpu=self.get("micro_batch_per_gpu", SFT_TABLE),
        )

    # -- problems -----------------------------------------------------------------------------------------
    def _problems(self) -> list[Problem]:
        s = self.s
        found = list(s.problems)
        same_file = [(a, b) for a, b in s.duplicates if a.file == b.file]  # a delegating script overrides on purpose
        found += duplicate_problems(replace(s, duplicates=same_file))
        found += deprecated(
            LEGACY, s.overrides, "{key} is skyrl-train's old spelling, which SkyRL now rejects; write {advice}"
        )
        found += deprecated(REMOVED, s.overrides, "{key} is no longer supported and SkyRL refuses to start: {advice}")
        if s.text("trainer.strategy") == "fsdp2":
            found.append(
                _deprecated(
                    s,
                    "trainer.strategy",
                    "trainer.strategy=fsdp2 has been renamed to fsdp "
                    "(SkyRL still accepts it, with a DeprecationWarning)",
                )
            )
        if "trainer.use_sample_packing" in s.overrides:
            found.append(
                _deprecated(
                    s,
                    "trainer.use_sample_packing",
                    "trainer.use_sample_packing has been renamed to trainer.remove_microbatch_padding",
                )
            )
        if (self.module or "").startswith("skyrl_train."):
            found.append(
                Problem(
                    s.trainer_line,
                    f"{self.module} is from the skyrl-train package, removed in 6dc221fc2; "
                    "the module is now skyrl.train.entrypoints.main_base",
                    "entry_point",
                    kind="deprecated",
                    severity="warning",
                )
            )
        for key, override in s.overrides.items():
            if override.raw.startswith("+"):
                found.append(
                    Problem(
                        override.line,
                        f"{override.raw.split('=', 1)[0]}: SkyRL rejects the '+' prefix "
                        "(config.py:1789-1794); subclass the config to add a field",
                        key,
                    )
                )
        return found


def _deprecated(s: ScriptSettings, key: str, message: str) -> Problem:
    return Problem(s.overrides[key].line, message, key, kind="deprecated", severity="warning")
