"""NeMo-RL: a recipe merged over its ``defaults:`` chain, or ``uv run examples/run_grpo.py --config X.yaml k=v``.

The hardware is the ``cluster:`` block after inheritance (``num_nodes × gpus_per_node``,
NVIDIA-NeMo/RL@7ea279a nemo_rl/algorithms/grpo.py:759-910): generation that is not
colocated is carved *out of* that cluster, never added to it.  The one addition is
nemo-gym's GPU nodes (``env.nemo_gym.num_gpu_nodes``), which the recipes document as
outside ``cluster`` (recipes/llm/grpo-qwen3-1.7b-6n8g-megatron-super-rlvr.yaml:85-88).
Every value a recipe gets comes from some file of its chain, so "framework defaults"
are mostly the base configs' own lines; a parent that cannot be read makes what it would
set unknown.  Recipe names follow ``<algo>-<model>-<N>n<G>g[-variant]``
(tests/test_suites/README.md:16-45); :func:`name_fields` parses one, for the naming check.

No settings table (:class:`~.base.Table`) is kept: every value, default or not, is a
line of the recipe's merged chain (:class:`~.layers.Merged`), cited where it is read.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Any

from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, load
from sphinx_rlresources.scripts.files import Files, inside, relative_to
from sphinx_rlresources.scripts.frameworks.base import (
    added,
    as_bool,
    as_float,
    as_int,
    as_lower,
    as_recipe_model,
    default,
    derived,
    first,
    from_override,
    product,
)
from sphinx_rlresources.scripts.frameworks.inherit import MAX_CONFIG_CHARS, Parent, merge_chain
from sphinx_rlresources.scripts.frameworks.layers import Entry, Merged
from sphinx_rlresources.scripts.frameworks.sanity import common_problems, duplicate_problems
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.hydra import read_hydra
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run

NAME = "nemo-rl"
VOCABULARY = Vocabulary(
    NAME,
    {
        # The recipe's algorithm block, or grpo.adv_estimator.name when it names one (nemo_rl/algorithms).
        "grpo": GROUP_TASKS,
        "reinforce_plus_plus": ("REINFORCE++",),
        "ppo": ("PPO",),
        "distillation": ("Distillation",),
        "dpo": ("DPO",),
        "sft": ("SFT",),
        "rm": ("RM",),
    },
    naming="nemo-rl",
    # The DTensor policy loads the model in fp32 "to keep master weights in float32" and computes
    # in bf16 (nemo_rl/models/policy/dtensor_policy_worker.py: AutoConfig torch_dtype=torch.float32,
    # _parallelize_model(param_dtype=self.dtype)); Megatron keeps bf16 parameters either way.
    fsdp_param_bytes=4,
    # Its Megatron DDP reduces gradients in bf16: distributed_data_parallel_config.grad_reduce_in_fp32
    # is false in examples/configs/grpo_math_1B.yaml (and grpo_math_1B_megatron.yaml in July 2025).
    megatron_grad_bytes=2,
    # Its DTensor tensor parallelism shards the output head on the vocabulary
    # (ColwiseParallel(output_layouts=Shard(-1)), nemo_rl/models/dtensor/parallelize.py:189) and takes
    # the log-probs from the vocabulary-parallel logits (get_logprobs_from_vocab_parallel_logits,
    # nemo_rl/distributed/model_utils.py:1558), at NVIDIA-NeMo/RL@7ea279a.
    vocab_parallel=True,
    # With dynamic batching or sequence packing, the log-prob passes take logprob_mb_tokens, which
    # examples/configs/grpo_math_1B.yaml sets to ${mul:${policy.max_total_sequence_length},
    # ${policy.logprob_batch_size}} beside train_mb_tokens (nemo_rl/models/policy/lm_policy.py:475).
    log_prob_budget_per_sequence=True,
    # Colocated generation moves the model and the optimizer to the CPU whatever cpu_offload says,
    # and brings them back for their own phase (nemo_rl/models/policy/workers: prepare_for_training,
    # offload_before_refit, offload_after_refit; grpo.py refit_policy_generation).
    generation_offload=True,
    # What a recipe that says nothing of them gets: examples/configs/grpo_math_1B.yaml at 7ea279a
    # (dtensor_cfg.cpu_offload and megatron_cfg.optimizer.optimizer_cpu_offload false,
    # vllm_cfg.gpu_memory_utilization 0.6).  Its activation_checkpointing false is the 1B recipe's;
    # the long-context recipes turn it on, so a run that does not say keeps the assumed value.
    memory_fraction=0.6,
    defaults={"param_offload": False, "optimizer_offload": False},
)
ALGORITHMS = ("grpo", "ppo", "distillation", "dpo", "sft", "rm")
"""The top-level block that names a recipe's algorithm (one per base config)."""
P = "policy"
G = "policy.generation"
KEYS: dict[str, str] = {
    "micro_batch_per_gpu": f"{P}.train_micro_batch_size",
    "log_prob_micro_batch_per_gpu": f"{P}.logprob_batch_size",
    "max_token_len_per_gpu": f"{P}.dynamic_batching.train_mb_tokens",
    "gpus_per_node": "cluster.gpus_per_node",
    "nodes": "cluster.num_nodes",
}
"""A ``Run`` setting -> the recipe path the reader reads it from (and ``estimate --suggest`` writes it to)."""
ENGINE_KEYS: dict[str, dict[str, str]] = {
    "vllm": {
        "rollout_tp": f"{G}.vllm_cfg.tensor_parallel_size",
        "memory_fraction": f"{G}.vllm_cfg.gpu_memory_utilization",
    },
    "sglang": {"rollout_tp": f"{G}.sglang_cfg.tp_size", "memory_fraction": f"{G}.sglang_cfg.mem_fraction_static"},
    "trtllm": {"rollout_tp": f"{G}.trtllm_cfg.tensor_parallel_size"},
}
"""The generation backend -> its paths for the engine's settings."""
BACKEND_KEYS: dict[str, dict[str, str]] = {
    "dtensor": {
        "param_offload": f"{P}.dtensor_cfg.cpu_offload",
        "optimizer_offload": f"{P}.dtensor_cfg.cpu_offload",
        "gradient_checkpointing": f"{P}.dtensor_cfg.activation_checkpointing",
    },
    "megatron": {
        "optimizer_offload": f"{P}.megatron_cfg.optimizer.optimizer_cpu_offload",
        "gradient_checkpointing": f"{P}.megatron_cfg.activation_checkpointing",
    },
}
"""The policy's backend -> its paths for offload and recomputation (DTensor offloads both with one switch)."""
#: Each entry point's config when ``--config`` is not given (NVIDIA-NeMo/RL@7ea279a examples/run_*.py).
DEFAULT_CONFIGS = {
    "examples/run_grpo.py": "examples/configs/grpo_math_1B.yaml",  # run_grpo.py:81-84
    "examples/run_sft.py": "examples/configs/sft.yaml",  # run_sft.py:168
    "examples/run_dpo.py": "examples/configs/dpo.yaml",  # run_dpo.py:47
    "examples/run_ppo.py": "examples/configs/ppo_math_1B.yaml",  # run_ppo.py:98-100
    "examples/run_rm.py": "examples/configs/rm.yaml",  # run_rm.py:48
    "examples/run_distillation.py": "examples/configs/distillation_math.yaml",  # run_distillation.py:55-57
    "examples/run_vlm_grpo.py": "examples/configs/vlm_grpo_3B.yaml",  # run_vlm_grpo.py:57-59
}
_NAME_RE = re.compile(
    r"(?P<algo>[a-z0-9_]+)-(?P<model>.+?)-(?P<nodes>\d+)n(?P<gpus>\d+)g"
    r"(?:-(?P<variant>.+?))?(?:\.v(?P<version>\d+))?"
)
_ENTRY_RE = re.compile(r"(?:^|/)examples/(?:nemo_gym/)?run_[a-z0-9_]+\.py$")


# -- recipes ------------------------------------------------------------------------------------
def claims(document: YamlDocument) -> bool:
    """A NeMo-RL config: ``cluster:`` or ``policy:`` in its own spelling, or ``defaults:`` naming a YAML file."""
    value = document.value
    if not isinstance(value, dict):
        return False
    cluster, policy = value.get("cluster"), value.get(P)
    if (
        isinstance(cluster, dict)
        and ("gpus_per_node" in cluster or "num_nodes" in cluster)
        and "actor_train" not in value
    ):
        return True
    if isinstance(policy, dict) and any(
        k in policy for k in ("model_name", "dtensor_cfg", "megatron_cfg", "generation")
    ):
        return True
    parents = value.get("defaults")
    named = [parents] if isinstance(parents, str) else parents if isinstance(parents, list) else []
    return bool(named) and all(isinstance(p, str) and p.endswith((".yaml", ".yml")) for p in named)


def parents(value: Any, path: str) -> list[Parent]:
    """``defaults:``, one path or a list, each relative to the file naming it (nemo_rl/utils/config.py:23-27, 75-95)."""
    named = value.get("defaults") if isinstance(value, dict) else None
    items = [named] if isinstance(named, str) else named if isinstance(named, list) else []
    return [Parent(str(item), None if str(item).startswith("/") else relative_to(path, str(item))) for item in items]


def read(document: YamlDocument, path: str, files: Files | None) -> Run:
    """The :class:`Run` of a recipe, merged over its chain of parents."""
    merged, problems = merge_chain(document, path, files, parents, frozenset({"defaults"}))
    return _Reader(merged, path).run(problems)


def name_fields(filename: str) -> dict[str, str | int | None] | None:
    """``<algo>-<model>-<N>n<G>g[-variant][.vN]`` parsed from a recipe's file name; None when it does not follow it.

    ``grpo-llama3.2-1b-instruct-1n8g-fsdp2tp1.v3.yaml`` gives ``algo='grpo'``,
    ``model='llama3.2-1b-instruct'``, ``nodes=1``, ``gpus_per_node=8``,
    ``variant='fsdp2tp1'``, ``version=3``.  The name is a claim, not the truth: seven
    recipes at 7ea279a disagree with their own ``cluster:``.
    """
    stem = posixpath.basename(filename)
    for suffix in (".yaml", ".yml", ".sh"):
        stem = stem.removesuffix(suffix)
    match = _NAME_RE.fullmatch(stem)
    if match is None:
        return None
    version = match.group("version")
    return {
        "algo": match.group("algo"),
        "model": match.group("model"),
        "nodes": int(match.group("nodes")),
        "gpus_per_node": int(match.group("gpus")),
        "variant": match.group("variant") or "",
        "version": int(version) if version else None,
    }


# -- launch scripts ---------------------------------------------------------------------------------
def claims_command(command: Command) -> bool:
    """``uv run examples/run_grpo.py ...`` (or ``python examples/...``, nemo-gym's runners)."""
    return _entry(command) is not None


def _entry(command: Command) -> tuple[int, str] | None:
    for index, field in enumerate(command.fields):
        value = field.value or ""
        if _ENTRY_RE.search(value) and not value.startswith("-"):
            return index, value.removeprefix("./")
    return None


def read_command(command: Command, reading: Interpreter, path: str) -> Run:
    """The recipe the command names (read through the reader's :class:`Files`), with the command's overrides on top.

    The overrides are the last layer, as ``parse_hydra_overrides`` applies them after
    ``load_config`` (examples/run_grpo.py:86-92); a recipe that cannot be read leaves
    everything the command does not say unknown.
    """
    index, entry = _entry(command) or (0, "")
    config, _line = _config_flag(command, index)
    problems: list[Problem] = []
    if config is _ABSENT:
        config = DEFAULT_CONFIGS.get("examples/" + entry.split("examples/", 1)[-1])
        if config is None:
            problems.append(
                Problem(
                    command.line,
                    f"{entry} without --config reads its own default config, which this reader "
                    "does not know; pass --config",
                    "config",
                    severity="warning",
                )
            )
    target = inside(config) if isinstance(config, str) else _suite_recipe(config, reading, path)
    document = _load(reading.files, target)
    if document is not None and target is not None:
        merged, found = merge_chain(document, target, reading.files, parents, frozenset({"defaults"}))
        merged = _relabel(merged, target)
        problems += found
    else:
        merged = Merged()
        merged.cover(config if isinstance(config, str) else "the --config file")
    settings = read_hydra(reading, command)
    layer: dict[str, Entry] = {}
    for key, override in settings.overrides.items():
        value = from_override(override, lambda text: text)
        origin = value.origin if value.value is not None else Origin.RUNTIME
        layer[key] = Entry(value.value, origin, override.line, override.file, override.raw)
    merged.apply(layer, [])
    run = _Reader(merged, path).run(problems)
    run = replace(run, entry_point=entry, launch_line=command.line, variables=dict(settings.variables))
    found_here = list(settings.problems)
    found_here += duplicate_problems(settings) + common_problems(run, reading, settings)
    return replace(run, problems=(*run.problems, *found_here))


def _suite_recipe(config: Any, reading: Interpreter, path: str) -> str | None:
    """The recipe of a test-suite script: ``--config $CONFIG_PATH``, which the suite's ``common.env`` derives.

    ``CONFIG_PATH=$(echo $SCRIPT_DIR/${EXP_NAME}.yaml | sed 's#tests/test_suites#examples/configs/recipes#')``
    with ``EXP_NAME=$(basename $0 .sh)`` (tests/test_suites/llm/common.env:40,50 at 7ea279a): the
    script's own path, moved to the recipes.  Only when the script sourced a file that sets
    ``CONFIG_PATH`` and ``--config`` names an unknown file.
    """
    if config is not None or "CONFIG_PATH" not in reading.vars or not path.startswith("tests/test_suites/"):
        return None
    if "EXP_NAME" in reading.vars and reading.vars["EXP_NAME"].origin not in ("runtime", "script-default"):
        return None  # a wrapper chose another experiment name
    if not path.endswith(".sh") or reading.vars["CONFIG_PATH"].value is not None:
        return None
    return "examples/configs/recipes/" + path.removeprefix("tests/test_suites/").removesuffix(".sh") + ".yaml"


def _load(files: Files | None, target: str | None) -> YamlDocument | None:
    text = files.read(target) if files is not None and target else None
    if text is None or len(text) > MAX_CONFIG_CHARS:
        return None
    try:
        document = load(text, merge_keys=True)
    except YamlError:
        return None
    return document if isinstance(document.value, dict) else None


class _Absent:
    pass


_ABSENT: Any = _Absent()


def _config_flag(command: Command, start: int) -> tuple[Any, int]:
    """The value of ``--config`` (None when unknown, ``_ABSENT`` when not given) and its line.

    An unquoted ``$CONFIG_PATH`` whose value is unknown expands to no argument at all, so
    ``--config`` followed by an override (``a.b=c``) or another flag names an unknown file.
    """
    fields = command.fields
    for index in range(start, len(fields)):
        text = fields[index].value
        if text == "--config":
            nxt = fields[index + 1] if index + 1 < len(fields) else None
            if nxt is None or nxt.value is None or "=" in nxt.value or nxt.value.startswith("-"):
                return None, fields[index].line
            return nxt.value, nxt.line
        if text is not None and text.startswith("--config="):
            return text.split("=", 1)[1], fields[index].line
        if text is None and fields[index].word.raw.startswith("--config="):
            return None, fields[index].line
    return _ABSENT, 0


def _relabel(merged: Merged, config: str) -> Merged:
    """The recipe's own lines, read for a script, are in the recipe's file, not the script."""
    for key, entry in merged.entries.items():
        if entry.file == "" and entry.line:
            merged.entries[key] = Entry(entry.value, entry.origin, entry.line, config, entry.written)
    return merged


# -- the settings ------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, merged: Merged, path: str) -> None:
        self.m = merged
        self.path = path

    def run(self, problems: list[Problem]) -> Run:
        m = self.m
        nodes = m.found(KEYS["nodes"], as_int)
        per_node = m.found(KEYS["gpus_per_node"], as_int)
        cluster = derived(product(nodes, per_node), [nodes, per_node], "cluster.num_nodes × cluster.gpus_per_node")
        gym_nodes = m.found("env.nemo_gym.num_gpu_nodes", as_int)
        gpus, all_nodes, gym_role = cluster, nodes, None
        if gym_nodes.value:
            gym_gpus = derived(
                product(gym_nodes, per_node),
                [gym_nodes, per_node],
                "env.nemo_gym.num_gpu_nodes × cluster.gpus_per_node (nemo-gym's nodes are outside cluster)",
            )
            gym_role = Role("environment", gym_gpus, gym_nodes, per_node)
            gpus = derived(added(cluster, gym_gpus), [cluster, gym_gpus], "cluster + nemo-gym's GPU nodes")
            all_nodes = derived(
                added(nodes, gym_nodes), [nodes, gym_nodes], "cluster.num_nodes + env.nemo_gym.num_gpu_nodes"
            )
        elif gym_nodes.value is None and gym_nodes.written:  # an unread parent (or the run) may add nemo-gym nodes
            why = f"cluster, plus nemo-gym's GPU nodes if any ({gym_nodes.written})"
            gpus = Found(None, Origin.UNKNOWN, 0, why, gym_nodes.file)
            all_nodes = Found(None, Origin.UNKNOWN, 0, why, gym_nodes.file)
        backend, tp, pp, cp, ep = self._backend()
        engine = m.found(f"{G}.backend", as_lower)
        colocated = m.found(f"{G}.colocated.enabled", as_bool) if m.has(G) or not m.complete else UNKNOWN
        roles = self._roles(colocated, nodes, per_node, cluster)
        if gym_role is not None:
            roles = (*roles, gym_role)
        algorithm = self._algorithm()
        kl = m.found("loss_fn.reference_policy_kl_penalty", as_float)
        use_kl = Found(kl.value > 0, kl.origin, kl.line, kl.written, kl.file) if kl.value is not None else UNKNOWN
        offload = m.found(BACKEND_KEYS["dtensor"]["param_offload"], as_bool) if backend.value == "dtensor" else UNKNOWN
        optimizer_offload = self._optimizer_offload(backend, offload)
        param_offload, offload_mode = (
            offload,
            (
                Found("compute", offload.origin, offload.line, offload.written, offload.file)
                if offload.value
                else UNKNOWN
            ),
        )
        run = Run(
            path=self.path,
            framework=NAME,
            gpus=gpus,
            nodes=all_nodes,
            gpus_per_node=per_node,
            roles=roles,
            colocated=colocated,
            train_backend=backend,
            train_tp=tp,
            train_pp=pp,
            train_ep=ep,
            train_cp=cp,
            lora_rank=self._lora(backend),
            model=m.found(f"{P}.model_name", as_recipe_model),
            algorithm=algorithm,
            use_kl=use_kl if algorithm.value in ("grpo", "reinforce_plus_plus") else UNKNOWN,
            critic=self._critic(),
            prompt_length=m.found("data.max_input_seq_length", as_int),
            response_length=m.found(f"{G}.max_new_tokens", as_int) if m.has(G) or not m.complete else UNKNOWN,
            # grpo.py hands max_seq_len=policy_config["max_total_sequence_length"] to the rollout
            max_total_length=m.found(f"{P}.max_total_sequence_length", as_int),
            train_batch_size=first(
                m.found("grpo.num_prompts_per_step", as_int), m.found("distillation.num_prompts_per_step", as_int)
            ),
            micro_batch_per_gpu=m.found(KEYS["micro_batch_per_gpu"], as_int),
            log_prob_micro_batch_per_gpu=m.found(KEYS["log_prob_micro_batch_per_gpu"], as_int),
            dynamic_batch=m.found(f"{P}.dynamic_batching.enabled", as_bool),
            max_token_len_per_gpu=self._token_budget("train_mb_tokens"),
            log_prob_max_token_len_per_gpu=self._token_budget("logprob_mb_tokens"),
            rollout_n=first(
                m.found("grpo.num_generations_per_prompt", as_int),
                m.found("distillation.num_generations_per_prompt", as_int),
            ),
            param_offload=param_offload,
            optimizer_offload=optimizer_offload,
            offload_mode=offload_mode,
            gradient_checkpointing=self._checkpointing(backend),
            engine=engine,
            rollout_tp=self._rollout_tp(engine),
            memory_fraction=self._memory(engine),
        )
        return replace(run, problems=(*problems, *self._problems()))

    def _roles(
        self, colocated: Found[bool], nodes: Found[int], per_node: Found[int], cluster: Found[int]
    ) -> tuple[Role, ...]:
        """Trainer and generation: sharing the cluster, or splitting it (grpo.py:859-910)."""
        m = self.m
        if m.has("env.reward_model"):
            return ()  # a reward model takes its own share first; the split is not worked out here
        if colocated.value is True:
            return (Role("trainer", cluster, nodes, per_node), Role("rollout", cluster, nodes, per_node, "trainer"))
        if colocated.value is not False or nodes.value is None or per_node.value is None:
            return ()
        res_gpn = m.found(f"{G}.colocated.resources.gpus_per_node", as_int)
        res_nodes = m.found(f"{G}.colocated.resources.num_nodes", as_int)
        if nodes.value == 1:
            if res_gpn.value is None:
                return ()
            one = Found(1, nodes.origin, nodes.line, nodes.written, nodes.file)
            rollout = Role("rollout", res_gpn, one, res_gpn)
            left = derived(per_node.value - res_gpn.value, [per_node, res_gpn], "cluster.gpus_per_node − generation's")
            return (Role("trainer", left, one, left), rollout)
        if res_nodes.value is None:
            return ()
        gen = derived(
            res_nodes.value * per_node.value, [res_nodes, per_node], "generation nodes × cluster.gpus_per_node"
        )
        train_nodes = derived(nodes.value - res_nodes.value, [nodes, res_nodes], "cluster.num_nodes − generation's")
        train = derived(product(train_nodes, per_node), [train_nodes, per_node], "training nodes × gpus_per_node")
        return (Role("trainer", train, train_nodes, per_node), Role("rollout", gen, res_nodes, per_node))

    def _backend(self) -> tuple[Found[str], Found[int], Found[int], Found[int], Found[int]]:
        """DTensor or Megatron, whichever is enabled (models/policy/lm_policy.py:118-162), and its parallelism."""
        m = self.m
        megatron = m.found(f"{P}.megatron_cfg.enabled", as_bool)
        dtensor = m.found(f"{P}.dtensor_cfg.enabled", as_bool)
        if megatron.value and dtensor.value:
            return UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN
        if megatron.value:
            c = f"{P}.megatron_cfg"
            return (
                _as(megatron, "megatron"),
                m.found(f"{c}.tensor_model_parallel_size", as_int),
                m.found(f"{c}.pipeline_model_parallel_size", as_int),
                m.found(f"{c}.context_parallel_size", as_int),
                m.found(f"{c}.expert_model_parallel_size", as_int),
            )
        megatron_off = megatron.value is False or (megatron.value is None and m.complete and not megatron.written)
        if dtensor.value and megatron_off:
            c = f"{P}.dtensor_cfg"
            return (
                _as(dtensor, "dtensor"),
                m.found(f"{c}.tensor_parallel_size", as_int),
                UNKNOWN,
                m.found(f"{c}.context_parallel_size", as_int),
                UNKNOWN,
            )
        return UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN

    def _lora(self, backend: Found[str]) -> Found[int]:
        """The rank counts only when LoRA is enabled (dtensor ``lora_cfg``, Megatron ``peft``)."""
        block = {"dtensor": f"{P}.dtensor_cfg.lora_cfg", "megatron": f"{P}.megatron_cfg.peft"}.get(backend.value or "")
        if block is None:
            return UNKNOWN
        enabled = self.m.found(f"{block}.enabled", as_bool)
        if enabled.value:
            return self.m.found(f"{block}.dim", as_int)
        if enabled.value is False:
            return Found(0, enabled.origin, enabled.line, enabled.written, enabled.file)
        if self.m.complete and not self.m.has(block):
            # lm_policy.py:175-177 reads .get("lora_cfg", {}).get("enabled", False)
            return default(0, f"no {block} (NeMo-RL trains the whole model)")
        return enabled if enabled.written else UNKNOWN

    def _algorithm(self) -> Found[str]:
        m = self.m
        for name in ALGORITHMS:
            if m.has(name):
                if name == "grpo":
                    estimator = m.found("grpo.adv_estimator.name", as_lower)
                    if estimator.value is not None:
                        return estimator
                line = next((e.line for k, e in m.entries.items() if k.startswith(name + ".") and e.line), 0)
                return Found(name, Origin.SET, line, f"the {name}: block")
        return UNKNOWN

    def _critic(self) -> Found[bool]:
        m = self.m
        if m.has("ppo"):
            line = m.entries.get("value.model_name", Entry(None)).line
            return Found(
                True, Origin.DERIVED, line, "PPO trains a value model on the training cluster (ppo.py:682-777)"
            )
        if any(m.has(name) for name in ("grpo", "sft", "dpo", "distillation")):
            return Found(False, Origin.DERIVED, 0, "no value model outside PPO")
        return UNKNOWN

    def _token_budget(self, key: str) -> Found[int]:
        """``train_mb_tokens`` or ``logprob_mb_tokens`` of the batching block that is on."""
        for block in ("dynamic_batching", "sequence_packing"):
            enabled = self.m.found(f"{P}.{block}.enabled", as_bool)
            if enabled.value:
                return self.m.found(f"{P}.{block}.{key}", as_int)
        return UNKNOWN

    def _optimizer_offload(self, backend: Found[str], offload: Found[bool]) -> Found[bool]:
        if backend.value == "megatron":
            return self.m.found(BACKEND_KEYS["megatron"]["optimizer_offload"], as_bool)
        return offload

    def _checkpointing(self, backend: Found[str]) -> Found[bool]:
        key = BACKEND_KEYS.get(backend.value or "", {}).get("gradient_checkpointing")
        return self.m.found(key, as_bool) if key else UNKNOWN

    def _rollout_tp(self, engine: Found[str]) -> Found[int]:
        key = ENGINE_KEYS.get(engine.value or "", {}).get("rollout_tp")
        return self.m.found(key, as_int) if key else UNKNOWN

    def _memory(self, engine: Found[str]) -> Found[float]:
        key = ENGINE_KEYS.get(engine.value or "", {}).get("memory_fraction")
        return self.m.found(key, as_float) if key else UNKNOWN

    def _problems(self) -> list[Problem]:
        m = self.m
        megatron = m.found(f"{P}.megatron_cfg.enabled", as_bool)
        dtensor = m.found(f"{P}.dtensor_cfg.enabled", as_bool)
        if megatron.value and dtensor.value:
            return [
                Problem(
                    megatron.line if not megatron.file else 0,
                    "policy.megatron_cfg.enabled and policy.dtensor_cfg.enabled are both true; NeMo-RL refuses to "
                    "start (lm_policy.py:120-124): set dtensor_cfg.enabled: false",
                    "train_backend",
                )
            ]
        return []


def override_keys(run: Run) -> dict[str, tuple[str, ...]]:
    """Each setting a recipe of this adapter can be told: :data:`KEYS`, and its backend's and engine's paths."""
    found: dict[str, tuple[str, ...]] = {name: (key,) for name, key in KEYS.items()}
    for table, chosen in ((BACKEND_KEYS, run.train_backend.value), (ENGINE_KEYS, run.engine.value)):
        found.update({name: (key,) for name, key in table.get(chosen or "", {}).items()})
    return found


def _as(found: Found[bool], value: str) -> Found[str]:
    return Found(value, found.origin, found.line, found.written, found.file)
