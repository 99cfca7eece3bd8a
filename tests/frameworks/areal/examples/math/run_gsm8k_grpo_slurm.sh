#!/bin/bash
# Idiom from inclusionAI/AReaL's launch commands (`python3 -m areal.launcher.slurm ENTRY.py
# --config X.yaml key=value`, allocation_mode=sglang:d8p1t4+fsdp:d4c8 with cluster.n_nodes=8).
# Written for sphinx-rlresources' tests; not a copy.
python3 -m areal.launcher.slurm examples/math/gsm8k_grpo.py \
    --config examples/math/gsm8k_grpo.yaml \
    experiment_name=gsm8k-grpo-64 \
    allocation_mode=sglang:d8p1t4+fsdp:d4c8 \
    cluster.n_nodes=8 \
    cluster.n_gpus_per_node=8 \
    actor.path=Qwen/QwQ-32B
