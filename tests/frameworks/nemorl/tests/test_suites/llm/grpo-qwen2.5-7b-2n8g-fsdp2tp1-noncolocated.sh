#!/bin/bash
# Idiom from NVIDIA-NeMo/RL@7ea279abfbeb:tests/test_suites/llm/grpo-nemotron3-super-120BA12B-16n4g-megatron-qa-bf16-300step.sh
# (the config block, then `uv run examples/run_grpo.py --config $CONFIG_PATH` with cluster overrides).
# Written for sphinx-rlresources' tests; not a copy.
SCRIPT_DIR=$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd)
source $SCRIPT_DIR/common.env

# ===== BEGIN CONFIG =====
NUM_NODES=4
GPUS_PER_NODE=8
MAX_STEPS=20
# ===== END CONFIG =====

uv run examples/run_grpo.py \
    --config $CONFIG_PATH \
    grpo.max_num_steps=$MAX_STEPS \
    cluster.num_nodes=$NUM_NODES \
    cluster.gpus_per_node=$GPUS_PER_NODE \
    policy.generation.vllm_cfg.gpu_memory_utilization=0.8 \
    $@
