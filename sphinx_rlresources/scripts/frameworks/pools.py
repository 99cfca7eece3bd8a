"""The run's GPU pools and totals that add up: one rule for every adapter.

A run whose roles hold GPUs of their own (verl's one-step-off-policy rollout, a reward
model's pool, OpenRLHF's critic, slime's disaggregated engines) spans every pool: the
adapters add the pools' GPUs into the run's ``gpus``, but each reads ``nodes`` and
``gpus_per_node`` where its framework writes them, the trainer's pool.  A run of a
trainer on 1 node of 8 and a rollout on 1 node of 8 would then read as 16 GPUs on
1 node of 8, an answer that contradicts itself.  Here, once for all adapters, when the
pools have the same GPUs per node the run has that many per node and the sum of the
pools' nodes (each pool on nodes of its own, as verl's ``64_64`` examples size them);
when their GPUs per node differ, both are unknown, since such pools may share a node
(verl's ``2_6`` example: a rollout of 2 GPUs and a trainer of 6 on one node of 8).
A run whose totals already add up (NeMo-RL reads the whole cluster), cannot contradict each
other (the GPUs unknown), or has a pool that does not say its nodes (open-instruct's engines,
placed by Ray inside the job ``mason.py`` asks for) is left as the adapter read it.
"""

from __future__ import annotations

import dataclasses

from sphinx_rlresources.scripts.frameworks.base import derived
from sphinx_rlresources.scripts.run import Found, Origin, Role, Run


def own_pools(run: Run) -> tuple[Role, ...]:
    """The roles with GPUs of their own (a role that shares another's GPUs is not a pool)."""
    return tuple(role for role in run.roles if not role.colocated_with)


def settled(run: Run) -> Run:
    """``run`` with nodes and GPUs per node over all its pools, when it has more than one."""
    pools = own_pools(run)
    if len(pools) < 2 or _adds_up(run) or any(role.nodes.value is None for role in pools):
        return run  # one pool, totals that add up, or pools that do not say where they run
    per_node = _per_node(pools)
    nodes = _nodes(pools, per_node)
    return dataclasses.replace(
        run,
        nodes=run.nodes if nodes.value is not None and nodes.value == run.nodes.value else nodes,
        gpus_per_node=run.gpus_per_node if per_node.value == run.gpus_per_node.value else per_node,
    )


def _adds_up(run: Run) -> bool:
    """Whether the totals cannot contradict each other: unknown GPUs, or nodes × GPUs per node that make them."""
    gpus, nodes, per_node = run.gpus.value, run.nodes.value, run.gpus_per_node.value
    return gpus is None or (nodes is not None and per_node is not None and gpus == nodes * per_node)


def _shown(pools: tuple[Role, ...], part: str) -> str:
    return " + ".join(f"{role.name} {_value(getattr(role, part))}" for role in pools)


def _value(found: Found[int]) -> str:
    return "unknown" if found.value is None else str(found.value)


def _nodes(pools: tuple[Role, ...], per_node: Found[int]) -> Found[int]:
    parts = [role.nodes for role in pools]
    line = next((p.line for p in parts if p.line), 0)
    if per_node.value is None:
        written = f"nodes {_shown(pools, 'nodes')}, GPUs per node unlike: the pools may share nodes"
        return Found(None, Origin.UNKNOWN, line, written)
    total = sum(p.value for p in parts if p.value is not None)
    return derived(total, [*parts, per_node], f"nodes of every pool: {_shown(pools, 'nodes')}")


def _per_node(pools: tuple[Role, ...]) -> Found[int]:
    parts = [role.gpus_per_node for role in pools]
    values = {p.value for p in parts}
    if len(values) != 1 or None in values:
        line = next((p.line for p in parts if p.line), 0)
        return Found(None, Origin.UNKNOWN, line, f"GPUs per node of each pool: {_shown(pools, 'gpus_per_node')}")
    return derived(next(iter(values)), parts, f"GPUs per node of every pool: {_shown(pools, 'gpus_per_node')}")
