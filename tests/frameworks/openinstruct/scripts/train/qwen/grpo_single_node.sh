#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044aa620:scripts/train/qwen/grpo_fast_3b_single_node.sh
# (mason.py asks Beaker for the machine; after `--` and an escaped \&\& the trainer's own flags).
# Written for sphinx-rlresources' tests; not a copy.
python mason.py \
    --cluster ai2/example \
    --num_nodes 1 \
    --gpus 8 -- source configs/beaker_configs/ray_node_setup.sh \&\& python open_instruct/grpo_fast.py \
    --exp_name qwen_grpo \
    --beta 0.0 \
    --num_unique_prompts_rollout 32 \
    --num_samples_per_prompt_rollout 8 \
    --max_prompt_token_length 1024 \
    --response_length 2048 \
    --model_name_or_path Qwen/Qwen2.5-1.5B \
    --deepspeed_stage 2 \
    --num_learners_per_node 4 \
    --vllm_num_engines 4 \
    --vllm_tensor_parallel_size 1 \
    --gradient_checkpointing \
    --with_tracking
