#!/bin/bash
# Idiom from NVIDIA-NeMo/RL tests/test_suites/llm/grpo-deepseek-v3-*.sh (the checkpoint passed as
# policy.model_name=$NRL_..._CKPT, NeMo-RL's documented way; the cluster left to the recipe).
# Written for sphinx-rlresources' tests; not a copy.
SCRIPT_DIR=$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd)
source $SCRIPT_DIR/common.env

# ===== BEGIN CONFIG =====
MAX_STEPS=20
# ===== END CONFIG =====

uv run examples/run_grpo.py \
    --config $CONFIG_PATH \
    grpo.max_num_steps=$MAX_STEPS \
    policy.model_name=$NRL_QWEN25_7B_CKPT \
    policy.tokenizer.name=$NRL_QWEN25_7B_CKPT \
    $@ \
    2>&1 | tee $RUN_LOG
