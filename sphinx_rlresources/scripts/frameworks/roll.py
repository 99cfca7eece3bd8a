"""ROLL: a pipeline YAML whose roles each name the GPU ids they run on (``device_mapping: list(range(0,16))``).

ROLL has no GPU count and no colocation flag: each role (``actor_train``,
``actor_infer``, ``reference``, ``rewards.*``...) lists device ids, roles whose ids
overlap share GPUs, and the run needs ``max id + 1`` GPUs (alibaba/ROLL@8eb27cc
roll/configs/base_config.py:397-414, roll/pipeline/rlvr/rlvr_config.py:254-274).  ROLL
``eval``s the id string (worker_config.py:311-316); here it is *parsed*, accepting only
``list(range(a, b[, step]))``, literal lists of integers and ``+`` between them -- any
other text leaves that role's GPUs, and so the total, unknown.  An id below the highest
that no role uses still counts (ROLL places workers by device index), so the roles' own
GPUs can add up to fewer than the total; the total's text names such ids.  ROLL replaces
``num_gpus_per_node`` with the GPUs of the node it starts on (base_config.py:351-352) and
needs ``ceil((max id + 1) / size)`` nodes (base_config.py:409-414): the nodes are read on
nodes of the size the config states, and left to run time when it states none.

No settings table (:class:`~.base.Table`) is kept: the hardware is device-id strings per
role, and every other value is a line of the merged config chain, cited where it is read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from sphinx_rlresources.safe.yamlsafe import YamlDocument
from sphinx_rlresources.scripts.files import Files, relative_to
from sphinx_rlresources.scripts.frameworks.base import (
    as_bool,
    as_float,
    as_int,
    as_lower,
    as_recipe_model,
    as_text,
    default,
    derived,
    first,
)
from sphinx_rlresources.scripts.frameworks.inherit import SELF, Parent, merge_chain
from sphinx_rlresources.scripts.frameworks.layers import Merged
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run

NAME = "roll"
VOCABULARY = Vocabulary(
    NAME,
    {"gae": ("PPO",), "grpo": GROUP_TASKS},
    # Its training strategies score log-probs from logits cast whole to fp32 by default: DeepSpeed's
    # and fsdp2's log_probs_from_logits (roll/utils/functionals.py:214-217 at alibaba/ROLL@8eb27cc), Megatron's
    # vocab_parallel_logprobs unless cross_entropy_loss_fusion (default False,
    # mcore_adapter/src/mcore_adapter/training_args.py:140) and TP 1
    # (mcore_adapter/.../parallel_functions/vocab_parallel.py:84-111).  Its log-prob pass computes the
    # entropy too (roll/pipeline/base_worker.py:161-171), as the default says.
    logits_fp32=True,
)
"""ROLL's adv_estimator values whose task is plain; its others (reinforce, gigpo...) are not compared."""
#: ROLL's role blocks and the neutral role each plays, in the order they are reported.
ROLES = {
    "actor_train": "trainer",
    "student_train": "trainer",
    "sft_train": "trainer",
    "student": "trainer",
    "actor_infer": "rollout",
    "student_infer": "rollout",
    "reference": "reference",
    "critic": "critic",
    "reward": "reward",
    "reward_model": "reward",
    "rewards": "reward",
    "teacher": "teacher",
}
TRAIN_ROLES = ("actor_train", "student_train", "sft_train", "student")
INFER_ROLES = ("actor_infer", "student_infer")
#: strategy_name -> the neutral backend (roll/distributed/strategy/factory.py:18-35).
BACKENDS = {"megatron_train": "megatron", "fsdp2_train": "fsdp", "deepspeed_train": "deepspeed"}
ENGINES = {"vllm": "vllm", "sglang": "sglang", "hf_infer": "hf"}
MAX_DEVICES = 65_536
"""More device ids than any cluster has: the mapping is treated as unknown."""
_TERM = re.compile(
    r"\s*(?:list\(\s*range\(\s*(\d{1,6})\s*,\s*(\d{1,6})\s*(?:,\s*(\d{1,6})\s*)?\)\s*\)"
    r"|list\(\s*\[([\d\s,]*)\]\s*\)|\[([\d\s,]*)\])\s*"
)


# -- device ids ----------------------------------------------------------------------------------
def device_ids(value: Any) -> list[int] | None:
    """The ids a ``device_mapping`` names, parsed (never evaluated); None when it is anything else.

    ``list(range(0,16))``, ``list(range(0,2))+list(range(14,16))``, ``list([0,1,8,9])``,
    ``"[1]"`` and a YAML list of integers are read; ``list(range(0,N))`` with a variable,
    a comprehension or any other Python is not.
    """
    if isinstance(value, list):
        listed = [as_int(item) for item in value]
        known = [i for i in listed if i is not None and i >= 0]
        return known if len(known) == len(listed) else None
    if not isinstance(value, str) or len(value) > 4096:
        return None
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    ids: list[int] = []
    for part in text.split("+"):
        match = _TERM.fullmatch(part)
        if match is None:
            return None
        start, stop, step, inside, bare = match.groups()
        if start is not None:
            jump = int(step) if step is not None else 1
            if jump == 0 or len(ids) + max(0, (int(stop) - int(start)) // jump) > MAX_DEVICES:
                return None
            ids.extend(range(int(start), int(stop), jump))
        else:
            items = (inside if inside is not None else bare or "").split(",")
            words = [w.strip() for w in items if w.strip()]
            if not all(w.isdigit() for w in words) or len(ids) + len(words) > MAX_DEVICES:
                return None
            ids.extend(int(w) for w in words)
    return ids


def _unused(spans: dict[str, set[int]], top: int) -> str:
    """The ids no role uses below the highest: still GPUs of the node, so the pools add up to fewer."""
    used = set().union(*spans.values())
    idle = [str(i) for i in range(top + 1) if i not in used]
    if not idle:
        return ""
    shown = ", ".join(idle[:4]) + (", ..." if len(idle) > 4 else "")
    return f"; id {shown} used by no role (ROLL places by device index: the node still has it)"


def _nodes(gpus: Found[int], stated: Found[int]) -> tuple[Found[int], Found[int]]:
    """Nodes and GPUs per node from the node size the config states (``num_gpus_per_node: 8``).

    ROLL replaces that size with the GPUs of the node it starts on (base_config.py:351-352)
    and needs ``ceil((max id + 1) / size)`` nodes (base_config.py:409-414): on nodes of the
    stated size, the run fits one node when its ids do, else whole nodes when the ids fill
    them.  A last node only partly used leaves the GPUs per node unknown (they would not
    multiply to the run's GPUs); an unstated size leaves both to run time.
    """
    size = stated.value
    note = "on nodes of the stated size; ROLL takes the size of the node it starts on (base_config.py:351-352)"
    if gpus.value is None or size is None or size <= 0:
        written = f"{stated.written or 'num_gpus_per_node'}, replaced by the GPUs of the node ROLL starts on"
        runtime: Found[int] = Found(None, Origin.RUNTIME, stated.line, f"{written} (base_config.py:351-352)")
        return runtime, runtime
    if gpus.value <= size:
        nodes = derived(1, [gpus, stated], f"{gpus.value} GPUs within {stated.written}: one node, {note}")
        return nodes, derived(gpus.value, [gpus, stated], f"{gpus.written}, on one node")
    count = -(-gpus.value // size)
    nodes = derived(count, [gpus, stated], f"{gpus.value} GPUs over {stated.written}: {count} nodes, {note}")
    if gpus.value % size:
        return nodes, Found(None, Origin.UNKNOWN, stated.line, f"{stated.written}: the last node is partly used")
    return nodes, stated


# -- the config --------------------------------------------------------------------------------------
def claims(document: YamlDocument) -> bool:
    """A ROLL pipeline config: a role block that names ``device_mapping`` or ``strategy_args``."""
    value = document.value
    if not isinstance(value, dict):
        return False
    for name in ROLES:
        block = value.get(name)
        if isinstance(block, dict) and ("device_mapping" in block or "strategy_args" in block):
            return True
    return False


def parents(value: Any, path: str) -> list[Parent]:
    """Hydra's ``defaults:`` list: ``- ../config/envs@_here_`` merges that file into the root, then the file itself.

    Hydra puts ``_self_`` last unless the list names it; an entry of any other form
    (a config group choice, another package) is not followed, so what it sets is unknown.
    """
    named = value.get("defaults") if isinstance(value, dict) else None
    found: list[Parent] = []
    for item in named if isinstance(named, list) else []:
        if item == SELF:
            found.append(Parent(SELF, None))
            continue
        text = item if isinstance(item, str) else repr(item)
        target, _at, package = text.partition("@")
        if not isinstance(item, str) or package not in ("_here_", "_global_") or not target:
            found.append(Parent(text, None))
            continue
        found.append(Parent(text, relative_to(path, target.strip() + ".yaml")))
    return found


def read(document: YamlDocument, path: str, files: Files | None) -> Run:
    """The :class:`Run` of a ROLL pipeline config."""
    merged, problems = merge_chain(document, path, files, parents, frozenset({"defaults", "hydra"}))
    return _Reader(merged, path).run(problems)


class _Reader:
    def __init__(self, merged: Merged, path: str) -> None:
        self.m = merged
        self.path = path

    def _role_blocks(self) -> list[tuple[str, str]]:
        """(config key, role name) of every block with a ``device_mapping``, and of the blocks one level inside one.

        ROLL counts every worker config it has (``rewards.*`` and multi-teacher ``teacher.*``
        included), so a block this reader does not know by name still counts, under its own name.
        """
        found: list[tuple[str, str]] = []
        keys = sorted({k.rsplit(".device_mapping", 1)[0] for k in self.m.entries if k.endswith(".device_mapping")})
        for key in keys:
            top, _dot, rest = key.partition(".")
            if rest.count("."):
                continue
            neutral = ROLES.get(top, top)
            found.append((key, f"{neutral}:{rest}" if rest else neutral))
        order = list(ROLES)
        return sorted(
            found,
            key=lambda item: (
                order.index(item[0].split(".")[0]) if item[0].split(".")[0] in order else len(order),
                item[0],
            ),
        )

    def run(self, problems: list[Problem]) -> Run:
        m = self.m
        placed: list[tuple[str, Role]] = []
        spans: dict[str, set[int]] = {}
        unknown: Found[int] | None = None
        for key, neutral in self._role_blocks():
            entry = m.entry(f"{key}.device_mapping")
            if entry is not None and entry.value is None and entry.origin is Origin.SET:
                continue  # device_mapping: null -- the role runs on CPUs (worker_config.py:119-126)
            raw = m.found(f"{key}.device_mapping", lambda v: v)
            ids = device_ids(raw.value) if raw.value is not None else None
            if not ids:
                unknown = Found(None, Origin.UNKNOWN, raw.line, raw.written, raw.file)
                placed.append((key, Role(neutral, unknown)))
                continue
            spans[key] = set(ids)
            placed.append((key, Role(neutral, Found(len(spans[key]), Origin.DERIVED, raw.line, raw.written, raw.file))))
        train_ids = next((spans[k] for k in TRAIN_ROLES if k in spans), set())
        roles = [
            replace(role, colocated_with="trainer")
            if key not in TRAIN_ROLES and spans.get(key, set()) & train_ids
            else role
            for key, role in placed
        ]
        gpus: Found[int] = UNKNOWN
        if unknown is not None:
            gpus = Found(None, Origin.UNKNOWN, unknown.line, f"a device_mapping that is not read: {unknown.written}")
        elif spans:
            top = max(max(ids) for ids in spans.values())
            line = next((r.gpus.line for r in roles if r.gpus.line), 0)
            written = f"the highest device id + 1 ({top} + 1), over every role{_unused(spans, top)}"
            gpus = Found(top + 1, Origin.DERIVED, line, written)
        nodes, per_node = _nodes(gpus, m.found("num_gpus_per_node", as_int))
        train = next((r for r in TRAIN_ROLES if m.has(r)), "actor_train")
        infer = next((r for r in INFER_ROLES if m.has(r)), "actor_infer")
        engine = self._name(f"{infer}.strategy_args.strategy_name", ENGINES)
        backend = self._name(f"{train}.strategy_args.strategy_name", BACKENDS)
        mega = f"{train}.strategy_args.strategy_config"
        is_megatron = backend.value == "megatron"
        run = Run(
            path=self.path,
            framework=NAME,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=tuple(roles),
            colocated=self._colocated(spans, train, infer),
            train_backend=backend,
            train_tp=m.found(f"{mega}.tensor_model_parallel_size", as_int) if is_megatron else UNKNOWN,
            train_pp=m.found(f"{mega}.pipeline_model_parallel_size", as_int) if is_megatron else UNKNOWN,
            train_ep=m.found(f"{mega}.expert_model_parallel_size", as_int) if is_megatron else UNKNOWN,
            train_cp=m.found(f"{mega}.context_parallel_size", as_int) if is_megatron else UNKNOWN,
            lora_rank=self._lora(train),
            lora_targets=m.found(f"{train}.model_args.lora_target", as_text),
            model=first(
                m.found(f"{train}.model_args.model_name_or_path", as_recipe_model),
                m.found("student_pretrain" if train == "student" else "pretrain", as_recipe_model),
            ),
            algorithm=m.found("adv_estimator", as_lower),
            critic=self._critic(spans),
            prompt_length=m.found("prompt_length", as_int),
            response_length=m.found("response_length", as_int),
            train_batch_size=m.found("rollout_batch_size", as_int),
            micro_batch_per_gpu=m.found(f"{train}.training_args.per_device_train_batch_size", as_int),
            dynamic_batch=m.found(f"{train}.use_dynamic_batching_in_train", as_bool),
            max_token_len_per_gpu=m.found(f"{train}.max_tokens_per_microbatch_in_train", as_int),
            rollout_n=m.found("num_return_sequences_in_group", as_int),
            gradient_checkpointing=self._checkpointing(train),
            engine=engine,
            rollout_tp=self._rollout_tp(infer, engine),
            memory_fraction=self._memory(infer, engine),
        )
        return replace(run, problems=(*problems, *self._problems(train, backend)))

    def _name(self, key: str, names: dict[str, str]) -> Found[str]:
        found = self.m.found(key, as_lower)
        if found.value is None:
            return found
        neutral = names.get(found.value)
        return Found(neutral, found.origin if neutral else Origin.UNKNOWN, found.line, found.written, found.file)

    @staticmethod
    def _colocated(spans: dict[str, set[int]], train: str, infer: str) -> Found[bool]:
        if train not in spans or infer not in spans:
            return UNKNOWN
        shared = bool(spans[train] & spans[infer])
        return Found(shared, Origin.DERIVED, 0, f"{infer} and {train} device ids {'overlap' if shared else 'differ'}")

    def _lora(self, train: str) -> Found[int]:
        """LoRA is on when ``lora_target`` is set (rlvr_pipeline.py:59); rank 8 by default (model_args.py:36-38)."""
        target = self.m.found(f"{train}.model_args.lora_target", as_text)
        if target.value is not None:
            rank = self.m.found(f"{train}.model_args.lora_rank", as_int)
            return rank if rank.line or not self.m.complete else default(8, "lora_rank (ROLL's default)")
        if target.line or (self.m.complete and self.m.has(train)):
            return Found(
                0,
                target.origin if target.line else Origin.FRAMEWORK_DEFAULT,
                target.line,
                target.written or "no lora_target (model_args.py:39-40: None, the whole model trains)",
            )
        return UNKNOWN

    def _critic(self, spans: dict[str, set[int]]) -> Found[bool]:
        if "critic" in spans:
            return Found(True, Origin.DERIVED, self.m.found("critic.device_mapping", as_text).line, "a critic role")
        return UNKNOWN

    def _checkpointing(self, train: str) -> Found[bool]:
        """``disable_gradient_checkpointing`` says the opposite; False by default (model_args.py:76-78)."""
        found = self.m.found(f"{train}.model_args.disable_gradient_checkpointing", as_bool)
        if found.value is not None:
            return Found(not found.value, found.origin, found.line, found.written, found.file)
        if self.m.complete and self.m.has(train) and not found.written:
            return default(True, "gradient checkpointing (ROLL's default: disable_gradient_checkpointing false)")
        return Found(None, found.origin, found.line, found.written, found.file)

    def _rollout_tp(self, infer: str, engine: Found[str]) -> Found[int]:
        found = self.m.found(f"{infer}.strategy_args.strategy_config.tensor_parallel_size", as_int)
        if found.line or found.written or engine.value != "vllm" or not self.m.complete:
            return found
        return default(1, "tensor_parallel_size (ROLL's vLLM default, worker_config.py:285)")

    def _memory(self, infer: str, engine: Found[str]) -> Found[float]:
        key = {"vllm": "gpu_memory_utilization", "sglang": "mem_fraction_static"}.get(engine.value or "")
        return self.m.found(f"{infer}.strategy_args.strategy_config.{key}", as_float) if key else UNKNOWN

    def _problems(self, train: str, backend: Found[str]) -> list[Problem]:
        if backend.value != "deepspeed":
            return []
        return [
            Problem(
                backend.line if not backend.file else 0,
                f"{train}.strategy_args.strategy_name: deepspeed_train was removed from ROLL in v0.3.0 (7f9d4d38); "
                "the config no longer runs: use megatron_train or fsdp2_train",
                "train_backend",
                kind="deprecated",
                severity="warning",
            )
        ]
