#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044:scripts/train/rlvr/grpo_fast_mini_old.sh: a stale debug
# run with --actor_num_gpus_per_node (the old spelling of --num_learners_per_node) and
# --single_gpu_mode, vLLM sharing the learner's one GPU.
# Written for sphinx-rlresources' tests; not a copy.
python open_instruct/grpo_fast.py \
    --model_name_or_path HuggingFaceTB/SmolLM2-135M \
    --deepspeed_stage 2 \
    --actor_num_gpus_per_node 1 \
    --vllm_gpu_memory_utilization 0.3 \
    --single_gpu_mode \
    # --with_tracking
