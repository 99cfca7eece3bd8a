"""prime-rl's inference deployments: where ``uv run inference @ x.toml`` places its vLLM servers.

An inference config (``InferenceConfig``, packages/prime-rl-configs/src/prime_rl/configs/
inference.py:437-482 at PrimeIntellect-ai/prime-rl@559b447) serves a model and trains
nothing: its ``[vllm]`` table takes vLLM's own arguments (``model``, ``Qwen/Qwen3-0.6B``
unless said, inference.py:57; ``tensor_parallel_size`` 1, inference.py:84;
``data_parallel_size`` 1, inference.py:87) and its ``[deployment]`` places the servers:

- ``single_node`` (the default, inference.py:474): under ``[slurm]``, one node of
  ``gpus_per_node`` GPUs (8, inference.py:366: the job asks ``--nodes 1
  --gres=gpu:8 --exclusive``, templates/inference.sbatch.j2:4-6); run locally, vLLM's
  own engine on ``tensor_parallel_size × data_parallel_size`` GPUs;
- ``multi_node``: ``num_nodes`` nodes (2, inference.py:378) of ``gpus_per_node``;
- ``disaggregated``: prefill and decode node groups,
  ``prefill_nodes_per_replica × num_prefill_replicas`` +
  ``decode_nodes_per_replica × num_decode_replicas`` nodes (each 1 unless said,
  inference.py:388-397, summed in ``num_nodes`` at inference.py:426-428) of
  ``gpus_per_node`` GPUs each, every GPU of the node used (``dp_per_node =
  gpus_per_node // tensor_parallel_size``, inference.py:536-538).

An rl config's ``[inference]`` section has the same deployment; the rl reader
(:mod:`.primerl`) counts its disaggregated nodes with :func:`disaggregated_nodes`, the
one place that rule is written.
"""

from __future__ import annotations

from typing import Any

from sphinx_rlresources.scripts.frameworks.base import added, as_int, as_lower, default, derived, times
from sphinx_rlresources.scripts.frameworks.layers import Merged
from sphinx_rlresources.scripts.run import Found, Origin, Role

KEYS = frozenset(
    {"server", "router", "backend_port", "vllm", "log", "env_vars", "use_deep_gemm", "weight_broadcast"}
    | {"kv_cache_offload", "use_pd_kv_transfer", "enable_fp32_lm_head", "enable_fp32_router_logits"}
    | {"deployment", "slurm", "output_dir", "dry_run"}
)
"""InferenceConfig's fields (inference.py:437-482)."""
PREFIX = "inference"
"""The section an inference config's keys are read under: an rl config's ``[inference]`` has the same shape."""
Placement = tuple[Found[int], Found[int], Found[int], tuple[Role, ...]]


def claims(value: dict[str, Any]) -> bool:
    """An inference config: only InferenceConfig's keys, with a ``[vllm]`` table (no trainer, no orchestrator)."""
    return set(value) <= KEYS and isinstance(value.get("vllm"), dict)


def _setting(m: Merged, key: str, fallback: int, source: str) -> Found[int]:
    """``inference.<key>``, else InferenceConfig's default (only when every file was read)."""
    found = m.found(f"{PREFIX}.{key}", as_int)
    if found.line or found.written or not m.complete:
        return found
    return default(fallback, f"{key}: {fallback} (prime-rl's default, {source})")


def disaggregated_nodes(m: Merged) -> tuple[Found[int], Found[int]]:
    """The prefill and the decode nodes: ``*_nodes_per_replica × num_*_replicas`` each (inference.py:388-397)."""
    lines = {"prefill_nodes_per_replica": 388, "decode_nodes_per_replica": 391}
    lines |= {"num_prefill_replicas": 394, "num_decode_replicas": 397}
    part = {key: _setting(m, f"deployment.{key}", 1, f"inference.py:{line}") for key, line in lines.items()}
    prefill = times(part["prefill_nodes_per_replica"], part["num_prefill_replicas"], "prefill nodes")
    decode = times(part["decode_nodes_per_replica"], part["num_decode_replicas"], "decode nodes")
    return prefill, decode


def placement(m: Merged) -> Placement:
    """The GPUs, nodes and GPUs per node of an inference config read alone (its keys under ``inference.``)."""
    shape = m.found(f"{PREFIX}.deployment.type", as_lower)
    per_node = _setting(m, "deployment.gpus_per_node", 8, "inference.py:366")
    if shape.value == "disaggregated":
        prefill, decode = disaggregated_nodes(m)
        nodes = derived(added(prefill, decode), [prefill, decode], f"prefill {prefill.value} + decode {decode.value}")
        roles = tuple(
            Role(name, times(part, per_node, f"{name} nodes × gpus_per_node"), part, per_node)
            for name, part in (("prefill", prefill), ("decode", decode))
        )
        return times(nodes, per_node, "nodes × deployment.gpus_per_node"), nodes, per_node, roles
    if shape.value == "multi_node":
        nodes = _setting(m, "deployment.num_nodes", 2, "inference.py:378")
        gpus = times(nodes, per_node, "deployment.num_nodes × gpus_per_node")
        return gpus, nodes, per_node, (Role("server", gpus, nodes, per_node),)
    if shape.value not in (None, "single_node") or (shape.value is None and not m.complete):
        unknown: Found[int] = Found(None, Origin.UNKNOWN, shape.line, f"{shape.written}: a placement not read")
        return unknown, unknown, unknown, ()
    return _single_node(m, per_node)


def _single_node(m: Merged, per_node: Found[int]) -> Placement:
    one = default(1, "deployment.type single_node: one node")
    if m.has(f"{PREFIX}.slurm"):  # the job holds the whole node (inference.sbatch.j2:4-6, --exclusive)
        gpus = derived(per_node.value, [per_node], "[slurm]: one node of deployment.gpus_per_node")
    else:  # run here: vLLM's engine on TP × DP GPUs
        tp = _setting(m, "vllm.tensor_parallel_size", 1, "inference.py:84")
        dp = _setting(m, "vllm.data_parallel_size", 1, "inference.py:87")
        gpus = times(tp, dp, "vllm tensor_parallel_size × data_parallel_size")
    return gpus, one, gpus, (Role("server", gpus, one, gpus),)


__all__ = ["KEYS", "PREFIX", "claims", "disaggregated_nodes", "placement"]
