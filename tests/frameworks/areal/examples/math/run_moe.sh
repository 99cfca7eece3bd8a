#!/bin/bash
# Idiom from inclusionAI/AReaL@4aef98d:examples/math/gsm8k_grpo.yaml's launch (python3 -m
# areal.launcher.local ENTRY.py --config X.yaml key=value) with a Megatron trainer side that has an
# expert dimension (`e`, alloc_mode.py's common_dim): the experts split GPUs already counted.
# Written for sphinx-rlresources' tests; not a copy.
python3 -m areal.launcher.local examples/math/gsm8k_grpo.py \
    --config examples/math/gsm8k_grpo.yaml \
    cluster.n_nodes=2 \
    allocation_mode=sglang:d4t2+megatron:d2p2t2e2
