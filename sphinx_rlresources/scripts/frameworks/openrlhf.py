"""OpenRLHF: ``python3 -m openrlhf.cli.train_ppo_ray --flag value …``, directly, via Ray or in ``bash -c "…"``.

Two flag dialects exist, with no aliases between them: the flat one of every release up
to 0.10.1 (``--actor_num_gpus_per_node``, ``--vllm_num_engines``, ``--pretrain``) and
the dotted one from 0.10.2 on (``--actor.num_gpus_per_node``, ``--vllm.num_engines``,
``--actor.model_name_or_path``).  Both are read; the flat one is reported, since the
current release no longer parses it.

The run's GPUs follow OpenRLHF's own placement (``openrlhf/cli/train_ppo_ray.py``):
each role has ``num_nodes × num_gpus_per_node`` GPUs (8 per node unless said), the
reference exists only with a KL coefficient above 0, the critic only for GAE, the
reward model only without a remote reward (or agent); ``colocate_actor_ref`` puts the
reference on the actor's GPUs, ``colocate_critic_reward`` the reward model on the
critic's, and ``colocate_all`` everything on the actor's -- vLLM too, except in async
mode, where the engines keep GPUs of their own.  Defaults are OpenRLHF's argparse
defaults: at OpenRLHF/OpenRLHF@3c3be62 for the dotted flags and, for the flat ones,
only those that never changed from v0.4.0 to v0.10.1.post2 (a flat script may be from
any of them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sphinx_rlresources.scripts.frameworks.argv import as_model, dangling_problems, elided, launched, when, with_servers
from sphinx_rlresources.scripts.frameworks.base import (
    Flag,
    Setting,
    Table,
    as_bool,
    as_float,
    as_int,
    as_lower,
    as_text,
    default,
    derived,
    from_override,
    module_after,
    offload_mode,
    product,
    read_flags,
)
from sphinx_rlresources.scripts.frameworks.sanity import GROUP_RELATIVE, common_problems
from sphinx_rlresources.scripts.frameworks.vocabulary import Vocabulary
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run

NAME = "openrlhf"
ENTRY_POINTS = ("openrlhf.cli.train_ppo_ray", "openrlhf/cli/train_ppo_ray.py", "examples/train_ppo_ray.py")
"""The module since v0.3.6, and the script before it (``python3 examples/train_ppo_ray.py``)."""


#: Every flag the reader takes, in both dialects: today's dotted one (``keys``) and the flat one of
#: releases v0.4.0 .. v0.10.1.post2 (``old``; ``old_default``: every such release has the same default).
#: Lines: openrlhf/cli/train_ppo_ray.py at OpenRLHF/OpenRLHF@3c3be62 (dotted) and at v0.8.11 (flat).
HEAD = "openrlhf/cli/train_ppo_ray.py@3c3be62"


def _flag(
    dotted: str,
    flat: str | tuple[str, ...],
    convert: Callable[[str], Any],
    value: Any = None,
    lines: str = "",
    same: bool = True,
) -> Setting:
    """A flag in both dialects; ``lines``: its line at HEAD, and `` / `` the flat one's at v0.8.11 (``213 / 206``)."""
    at, _, flat_at = lines.partition(" / ")
    source = (f"{HEAD}:{at}" + (f" (v0.8.11:{flat_at})" if flat_at else "")) if at else ""
    return Setting(
        (dotted,) if dotted else (), convert, value, source, (flat,) if isinstance(flat, str) else flat, same
    )


TABLE = Table(
    "openrlhf",
    {
        "actor_nodes": _flag("actor.num_nodes", "actor_num_nodes", as_int, 1, "213 / 206"),
        "actor_gpn": _flag("actor.num_gpus_per_node", "actor_num_gpus_per_node", as_int, 8, "214 / 207"),
        "ref_nodes": _flag("ref.num_nodes", "ref_num_nodes", as_int, 1, "200 / 193"),
        "ref_gpn": _flag("ref.num_gpus_per_node", "ref_num_gpus_per_node", as_int, 8, "201 / 194"),
        "reward_nodes": _flag("reward.num_nodes", "reward_num_nodes", as_int, 1, "202 / 195"),
        "reward_gpn": _flag("reward.num_gpus_per_node", "reward_num_gpus_per_node", as_int, 8, "203 / 196"),
        "critic_nodes": _flag("critic.num_nodes", "critic_num_nodes", as_int, 1, "215 / 208"),
        "critic_gpn": _flag("critic.num_gpus_per_node", "critic_num_gpus_per_node", as_int, 8, "216 / 209"),
        "colocate_actor_ref": _flag("train.colocate_actor_ref", "colocate_actor_ref", as_bool, False, "206 / 199"),
        "colocate_critic_reward": _flag("train.colocate_critic_reward", "colocate_critic_reward", as_bool, False),
        "colocate_all": _flag("train.colocate_all", "colocate_all_models", as_bool, False, "223 / 216"),
        # None, no engines
        "vllm_engines": _flag("vllm.num_engines", "vllm_num_engines", as_int, None, "231 / 224"),
        "vllm_tp": _flag("vllm.tensor_parallel_size", "vllm_tensor_parallel_size", as_int, 1, "234 / 227"),
        "vllm_memory": Setting(
            ("vllm.gpu_memory_utilization",),
            as_float,
            0.95,
            f"{HEAD}:250",
            old=("vllm_gpu_memory_utilization",),
            old_default=False,
        ),
        # switches: absent is False
        "vllm_sleep": _flag("vllm.enable_sleep", "vllm_enable_sleep", as_bool, False, "244"),
        "async": _flag("train.async_enable", "async_train", as_bool, False, "274 / 254"),
        "zero_stage": _flag("ds.zero_stage", "zero_stage", as_int, 2, "308 / 272"),
        "checkpointing": _flag("actor.gradient_checkpointing_enable", "gradient_checkpointing", as_bool, False),
        "adam_offload": _flag("ds.adam_offload", "adam_offload", as_bool, False, "322 / 280"),
        "ds_tp": _flag("ds.tensor_parallel_size", "ds_tensor_parallel_size", as_int, 1, "353", same=False),
        "dynamic_batch": _flag("train.dynamic_batch_enable", "use_dynamic_batch", as_bool, False, "359 / 305"),
        "max_tokens": Setting(
            ("train.max_tokens_per_gpu",),
            as_int,
            16192,
            f"{HEAD}:361",
            old=("train_max_tokens_per_gpu",),
            old_default=False,
        ),
        # None: the train budget (train_ppo_ray.py:651-653 sets it so); the experience maker's passes take it
        "rollout_max_tokens": Setting(
            ("rollout.max_tokens_per_gpu",), as_int, None, f"{HEAD}:360", old=("rollout_max_tokens_per_gpu",)
        ),
        "lora_rank": _flag("ds.lora.rank", "lora_rank", as_int, 0, "365 / 311"),
        "lora_targets": _flag("ds.lora.target_modules", "target_modules", as_text),
        "rollout_batch": _flag("rollout.batch_size", "rollout_batch_size", as_int, 1024, "373 / 319"),
        "rollout_micro": Setting(
            ("rollout.micro_batch_size",),
            as_int,
            1,
            f"{HEAD}:377",
            old=("micro_rollout_batch_size",),
            old_default=False,
        ),
        # prompt + response
        "max_len": _flag("data.max_len", "max_len", as_int, 2048, "379", same=False),
        "max_new_tokens": Setting(
            ("rollout.max_new_tokens",),
            as_int,
            None,
            f"{HEAD}:380",
            old=(
                "max_new_tokens",
                "generate_max_len",
            ),
        ),
        # flat only, removed in v0.9.8
        "prompt_max_len": _flag("", "prompt_max_len", as_int),
        "train_micro": _flag("train.micro_batch_size", "micro_train_batch_size", as_int, 1, "393", same=False),
        "n_samples": _flag("rollout.n_samples_per_prompt", "n_samples_per_prompt", as_int, 1, "413 / 351"),
        "init_kl": _flag("algo.kl.init_coef", "init_kl_coef", as_float, 0.01, "419 / 361"),
        "estimator": _flag("algo.advantage.estimator", "advantage_estimator", as_lower, "gae", "477 / 383"),
        # A switch since v0.8 (examples/scripts/train_dapo_ray_hybrid_engine.sh); no default taken:
        # older releases lack it.
        "dynamic_filtering": _flag("algo.dynamic_filtering_enable", "dynamic_filtering", as_bool),
        "ring_attn": _flag("ds.ring_attn_size", "ring_attn_size", as_int, 1, "506", same=False),
        "model": _flag("actor.model_name_or_path", "pretrain", as_model, None, "517 / 414"),
        "remote_reward": _flag("reward.remote_url", "remote_rm_url", as_text, None, "519 / 416"),
        "agent": _flag("train.agent_func_path", "agent_func_path", as_text, None, "524 / 420"),
        "ref_offload": _flag("ref.offload", "ref_reward_offload", as_bool, False, "522 / 419"),
    },
    "--{key} (OpenRLHF's default: {value})",
)
OVERRIDDEN: dict[str, str] = {
    "micro_batch_per_gpu": "train_micro",
    "log_prob_micro_batch_per_gpu": "rollout_micro",
    "max_token_len_per_gpu": "max_tokens",
    "optimizer_offload": "adam_offload",
    "gradient_checkpointing": "checkpointing",
    "ref_param_offload": "ref_offload",
    "zero_stage": "zero_stage",
    "rollout_tp": "vllm_tp",
    "train_cp": "ring_attn",
    "memory_fraction": "vllm_memory",
    "free_cache_engine": "vllm_sleep",
    # the GPUs, when the run needs more than it has: the actor's (train_ppo_ray.py:86-93 @3c3be62), the
    # reference's where it must match them (colocate_actor_ref, :41-46), the engines that fill them (:55-63)
    "actor_nodes": "actor_nodes",
    "actor_gpus_per_node": "actor_gpn",
    "ref_nodes": "ref_nodes",
    "ref_gpus_per_node": "ref_gpn",
    "vllm_engines": "vllm_engines",
}
"""A ``Run`` setting (or a role's GPU count) -> its :data:`TABLE` entry, for what ``estimate --suggest``
may tell a run.

The trained parameters have no entry: OpenRLHF never offloads them (only Adam's states)."""
OPTIMIZER_ONLY = "OpenRLHF offloads the optimizer only"
DEFAULTED = ("optimizer_offload", "gradient_checkpointing", "ref_param_offload", "zero_stage")
"""The memory settings whose :data:`TABLE` default :data:`VOCABULARY` gives a run that says nothing of them."""
VOCABULARY = Vocabulary(
    NAME,
    {
        # --advantage_estimator's choices (openrlhf/cli/train_ppo_ray.py at OpenRLHF/OpenRLHF@3c3be62) as
        # OpenRLHF's README names them; group_norm is GRPO, DAPO with --dynamic_filtering (its DAPO example).
        "gae": ("PPO",),
        "reinforce": ("REINFORCE++",),
        "reinforce_baseline": ("REINFORCE++-baseline", "REINFORCE-baseline"),
        "rloo": ("RLOO",),
        "group_norm": ("GRPO", "DAPO", "GSPO"),
        "dr_grpo": ("Dr.GRPO",),
    },
    naming="openrlhf",
    # What a run that says nothing of them gets (estimate --framework openrlhf, a validation row):
    # the argparse defaults of TABLE, DeepSpeed's CPU Adam when Adam is offloaded, and the trained
    # parameters on the GPU (get_ds_train_config(offload=False, ...) in openrlhf/utils/deepspeed).
    offload_mode="compute",
    memory_fraction=TABLE.settings["vllm_memory"].default,
    # Its actor casts the logits to fp32 before scoring them (openrlhf/models/actor.py:267), and its
    # experience pass asks for no entropy (return_entropy only in the update, ppo_actor.py:301).
    logits_fp32=True,
    pass_entropy=False,
    defaults={
        "param_offload": False,
        "free_cache_engine": TABLE.settings["vllm_sleep"].default,
        **{field: TABLE.settings[OVERRIDDEN[field]].default for field in DEFAULTED},
    },
)
SWITCHES = frozenset(
    name
    for key in (
        "colocate_actor_ref",
        "colocate_critic_reward",
        "colocate_all",
        "vllm_sleep",
        "async",
        "checkpointing",
        "adam_offload",
        "dynamic_batch",
        "ref_offload",
        "dynamic_filtering",
    )
    for name in (*TABLE.settings[key].keys, *TABLE.settings[key].old)
)
VALUED = frozenset(name for s in TABLE.settings.values() for name in (*s.keys, *s.old) if name not in SWITCHES)
DOTTED_GROUPS = ("actor.", "ref.", "reward.", "critic.", "vllm.", "train.", "ds.", "data.", "rollout.", "algo.")
FLAT_TO_DOTTED = {flat: s.keys[0] for s in TABLE.settings.values() for flat in s.old if s.keys}
#: Group-relative estimators OpenRLHF refuses with one sample per prompt (train_ppo_ray.py:609-616 @3c3be62).
GROUP_ESTIMATORS = frozenset({"rloo", "reinforce_baseline", "group_norm", "dr_grpo"})


def _direct(command: Command) -> bool:
    module, _ = module_after(command)
    return module is not None and module.endswith(ENTRY_POINTS)


def claims(command: Command) -> bool:
    """OpenRLHF's Ray PPO trainer, run directly, through ``ray job submit`` or inside ``bash -c "…"``."""
    if _direct(command):
        return True
    return any(
        f.value is not None and any(" " in f.value and entry in f.value for entry in ENTRY_POINTS)
        for f in command.fields
    ) and (launched(command, _direct) is not None)


def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of an OpenRLHF launch command."""
    launch = launched(command, _direct) or command
    module, start = module_after(launch)
    found = read_flags(launch.fields[start:], SWITCHES, VALUED)
    return _Reader(found, reading, path, launch, module).run()


class _Reader:
    def __init__(self, found: dict[str, Flag], reading: Interpreter, path: str, launch: Command, module: str | None):
        self.flags = found
        self.reading = reading
        self.path = path
        self.launch = launch
        self.module = module
        dotted = [n for n in found if n.startswith(DOTTED_GROUPS)]
        flat = [n for n in found if n in FLAT_TO_DOTTED]
        self.dotted = bool(dotted) or not flat
        self.mixed = bool(dotted) and bool(flat)
        self.flat_used = flat
        self.elided = elided(launch.fields)

    def flag(self, key: str) -> Flag | None:
        setting = TABLE.settings[key]
        return next((self.flags[name] for name in (*setting.keys, *setting.old) if name in self.flags), None)

    def get(self, key: str) -> Found[Any]:
        """A setting as written in either dialect, else OpenRLHF's default where it is certain."""
        return TABLE.read(key, self.look_up, not self.elided, old_dialect=not self.dotted)

    def look_up(self, key: str, convert: Callable[[str], Any]) -> Found[Any]:
        flag = self.flags.get(key)
        return from_override(flag.override(), convert) if flag is not None else UNKNOWN

    def role(self, name: str) -> tuple[Found[int], Found[int], Found[int]]:
        nodes = self.get(f"{name}_nodes")
        per_node = self.get(f"{name}_gpn")
        gpus = derived(product(nodes, per_node), [nodes, per_node], f"{name} {nodes.value} × {per_node.value}")
        return gpus, nodes, per_node

    def run(self) -> Run:
        estimator = self.get("estimator")
        init_kl = self.get("init_kl")
        use_kl = when(init_kl, lambda v: v > 0, "a reference model for --algo.kl.init_coef > 0")
        critic = when(estimator, lambda v: v == "gae", "a critic for GAE")
        gpus, nodes, per_node, roles, colocated = self._placement(use_kl, critic)
        gpus, roles, served = with_servers(self.reading, self.launch, gpus, roles)
        if served:
            nodes, per_node = UNKNOWN, UNKNOWN
        engines = self.get("vllm_engines")
        adam_offload = self.get("adam_offload")
        max_len = self.get("max_len")
        max_new = self.get("max_new_tokens")
        prompt = self.get("prompt_max_len")
        if not prompt.line and max_len.line and max_new.line and max_len.value and max_new.value:
            prompt = derived(max_len.value - max_new.value, [max_len, max_new], "max_len - max_new_tokens")
        run = Run(
            path=self.path,
            framework=NAME,
            entry_point=self.module,
            launch_line=self.launch.line,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=roles,
            colocated=colocated,
            train_backend=Found("deepspeed", Origin.FRAMEWORK_DEFAULT, 0, "OpenRLHF trains with DeepSpeed only"),
            train_tp=self.get("ds_tp"),
            train_pp=default(1, "OpenRLHF has no pipeline parallelism"),
            train_ep=default(1, "OpenRLHF has no expert parallelism"),
            train_cp=self.get("ring_attn"),
            lora_rank=self.get("lora_rank"),
            lora_targets=self.get("lora_targets"),
            model=self.get("model"),
            algorithm=estimator,
            dynamic_sampling=self.get("dynamic_filtering"),
            use_kl=use_kl,
            critic=critic,
            prompt_length=prompt,
            response_length=max_new,
            train_batch_size=self.get("rollout_batch"),
            micro_batch_per_gpu=self.get("train_micro"),
            log_prob_micro_batch_per_gpu=self.get("rollout_micro"),
            dynamic_batch=self.get("dynamic_batch"),
            max_token_len_per_gpu=self.get("max_tokens"),
            log_prob_max_token_len_per_gpu=self.get("rollout_max_tokens"),
            rollout_n=self.get("n_samples"),
            optimizer_offload=adam_offload,
            # get_ds_train_config(offload=False, adam_offload=..., stage=...) in openrlhf/utils/deepspeed:
            # the trained parameters never leave the GPU, only Adam's states with --adam_offload
            param_offload=UNKNOWN if self.elided else default(VOCABULARY.defaults["param_offload"], OPTIMIZER_ONLY),
            zero_stage=self.get("zero_stage"),
            ref_param_offload=self.get("ref_offload"),
            offload_mode=offload_mode(
                ("compute", "DeepSpeed's CPU Adam: the optimizer steps on the host", adam_offload)
            ),
            gradient_checkpointing=self.get("checkpointing"),
            engine=_engine(engines),
            rollout_tp=self.get("vllm_tp") if (engines.value or 0) > 0 else UNKNOWN,
            memory_fraction=self.get("vllm_memory") if (engines.value or 0) > 0 else UNKNOWN,
            free_cache_engine=self.get("vllm_sleep") if (engines.value or 0) > 0 else UNKNOWN,
            deprecated=tuple(f"--{name}" for name in self.flat_used),
            variables={name: value.value for name, value in self.reading.vars.items()},
        )
        problems = self._problems(run) + dangling_problems(self.reading, self.launch)
        problems += common_problems(run, self.reading)
        return replace(run, problems=tuple(problems))

    def _placement(  # noqa: C901 - OpenRLHF's placement rules, one case each
        self, ref: Found[bool], critic: Found[bool]
    ) -> tuple[Found[int], Found[int], Found[int], tuple[Role, ...], Found[bool]]:
        """The run's GPUs by OpenRLHF's placement rules, with each role's share."""
        actor, actor_nodes, actor_gpn = self.role("actor")
        colocate_all = self.get("colocate_all")
        is_async = self.get("async")
        vllm = self._vllm()
        roles = [Role("trainer", actor, actor_nodes, actor_gpn)]
        parts: list[tuple[str, Found[int]]] = [("actor", actor)]
        unknown: list[Found[Any]] = []
        shared = "trainer" if colocate_all.value else ""
        if colocate_all.value is None or is_async.value is None:
            unknown.append(colocate_all if colocate_all.value is None else is_async)
        if ref.value is None:
            unknown.append(ref)
        elif ref.value:
            gpus, nodes, gpn = self.role("ref")
            with_actor = colocate_all.value or self.get("colocate_actor_ref").value
            roles.append(Role("reference", gpus, nodes, gpn, "trainer" if with_actor else ""))
            if not with_actor:
                parts.append(("reference", gpus))
        if critic.value is None:
            unknown.append(critic)
        elif critic.value:
            gpus, nodes, gpn = self.role("critic")
            roles.append(Role("critic", gpus, nodes, gpn, shared))
            if not shared:
                parts.append(("critic", gpus))
        reward = self._reward_model()
        if reward.value is None:
            unknown.append(reward)
        elif reward.value:
            gpus, nodes, gpn = self.role("reward")
            with_critic = bool(critic.value) and bool(self.get("colocate_critic_reward").value)
            roles.append(Role("reward", gpus, nodes, gpn, shared or ("critic" if with_critic else "")))
            if not shared and not with_critic:
                parts.append(("reward model", gpus))
        engines_share = bool(colocate_all.value) and is_async.value is False
        if vllm.value is None:  # on the actor's GPUs (however many engines), or unknown GPUs of their own
            roles.append(Role("rollout", vllm, colocated_with="trainer" if engines_share else ""))
            if not engines_share:
                unknown.append(vllm)
        elif vllm.value > 0:
            roles.append(Role("rollout", vllm, colocated_with="trainer" if engines_share else ""))
            if not engines_share:
                parts.append(("vLLM", vllm))
        colocated = (
            Found(engines_share, colocate_all.origin, colocate_all.line, colocate_all.written)
            if vllm.value
            else UNKNOWN
        )
        written = " + ".join(f"{label} {found.value}" for label, found in parts)
        items = [found for _, found in parts] + unknown
        total = derived(sum(f.value or 0 for _, f in parts) if not unknown else None, items, written)
        alone = len(parts) == 1
        return total, actor_nodes if alone else UNKNOWN, actor_gpn if alone else UNKNOWN, tuple(roles), colocated

    def _vllm(self) -> Found[int]:
        """vLLM's GPUs: engines × tensor parallel size (0 without ``--vllm.num_engines``)."""
        engines = self.get("vllm_engines")
        if not engines.line:
            return UNKNOWN if self.elided else default(0, "no --vllm.num_engines (OpenRLHF's default: no engines)")
        tp = self.get("vllm_tp")
        return derived(product(engines, tp), [engines, tp], f"vLLM {engines.value} engines × TP {tp.value}")

    def _reward_model(self) -> Found[bool]:
        """Whether a reward model takes GPUs: not with a remote reward, nor an agent (train_ppo_ray.py:132,598)."""
        for key in ("remote_reward", "agent"):
            flag = self.flag(key)
            if flag is not None:
                return Found(False, Origin.SET, flag.line, flag.raw, flag.file)
        if self.elided:
            return UNKNOWN
        return default(True, "no --reward.remote_url: a reward model on GPUs of its own")

    def _problems(self, run: Run) -> list[Problem]:
        found = list(self.reading.problems)
        line = self.launch.line
        shown = ", ".join(f"--{n}" for n in self.flat_used[:3])
        if self.mixed:
            found.append(
                Problem(
                    line,
                    f"the command mixes OpenRLHF's flat flags ({shown}) with its dotted ones: 0.10.2 renamed every "
                    "flag without aliases, so no release parses both; use the dotted names "
                    f"(--{FLAT_TO_DOTTED[self.flat_used[0]]})",
                    "",
                    kind="deprecated",
                )
            )
        elif self.flat_used:
            found.append(
                Problem(
                    line,
                    f"{shown} are OpenRLHF's flat flags, which 0.10.2 replaced by dotted ones with no aliases "
                    f"(--{FLAT_TO_DOTTED[self.flat_used[0]]}): the script runs only with OpenRLHF 0.10.1 or older; "
                    "pin that version, or move to the dotted flags",
                    "",
                    kind="deprecated",
                    severity="warning",
                )
            )
        n, algorithm = run.rollout_n, run.algorithm
        if algorithm.value in GROUP_ESTIMATORS - GROUP_RELATIVE and n.value == 1:
            found.append(
                Problem(
                    n.line or algorithm.line,
                    f"{algorithm.value} compares each response with the others of its prompt, and OpenRLHF refuses "
                    "it with one sample per prompt; set --rollout.n_samples_per_prompt above 1",
                    "rollout_n",
                    kind="zero-advantage",
                )
            )
        found.extend(self._colocation_problems(run))
        return found

    def _colocation_problems(self, run: Run) -> list[Problem]:
        """OpenRLHF's own assertions on colocated sizes (train_ppo_ray.py:41-63 @3c3be62)."""
        found = []
        trainer = next(role for role in run.roles if role.name == "trainer")
        actor = trainer.gpus
        engines = self.get("vllm_engines")
        vllm = self._vllm()
        sync_all = self.get("colocate_all").value and self.get("async").value is False
        if sync_all and engines.value and None not in (actor.value, vllm.value) and actor.value != vllm.value:
            found.append(
                Problem(
                    engines.line,
                    f"with colocate_all the vLLM engines must fill the actor's GPUs exactly, but they take "
                    f"{vllm.value} ({vllm.written}) and the actor has {actor.value}: OpenRLHF stops at start",
                    "gpus",
                )
            )
        reference = next((role for role in run.roles if role.name == "reference" and role.colocated_with), None)
        shapes = [(r.nodes.value, r.gpus_per_node.value) for r in (trainer, reference) if r is not None]
        if reference is not None and None not in shapes[0] + shapes[1] and shapes[0] != shapes[1]:
            found.append(
                Problem(
                    reference.gpus.line or self.launch.line,
                    f"the reference shares the actor's GPUs, so it must have the actor's nodes and GPUs per node, "
                    f"but it has {reference.gpus.written} and the actor {actor.written}: OpenRLHF stops at start; "
                    "give the reference the actor's sizes",
                    "gpus",
                )
            )
        return found


def override_keys(run: Run) -> dict[str, tuple[str, ...]]:
    """Each setting of :data:`OVERRIDDEN` as the flag the run's own dialect spells (flat when it used a flat flag)."""
    flat = any(name.removeprefix("--") in FLAT_TO_DOTTED for name in run.deprecated)
    found: dict[str, tuple[str, ...]] = {}
    for name, key in OVERRIDDEN.items():
        if name == "rollout_tp" and run.colocated.value is not True:
            continue  # engines on GPUs of their own take engines x TP GPUs: TP alone would change the placement
        setting = TABLE.settings[key]
        flag = setting.old[0] if flat or not setting.keys else setting.keys[0]
        found[name] = (f"--{flag}",)
    return found


def _engine(engines: Found[int]) -> Found[str]:
    """vLLM when engines are asked for; without any it is left unknown (old releases generated with the actor)."""
    if engines.value is not None and engines.value > 0:
        return Found("vllm", engines.origin, engines.line, engines.written, engines.file)
    if engines.line:
        return Found(None, engines.origin, engines.line, engines.written, engines.file)
    return UNKNOWN


__all__ = ["NAME", "claims", "read"]
