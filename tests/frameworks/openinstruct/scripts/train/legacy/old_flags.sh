#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044aa620:scripts/train/rlvr/grpo_qwen_fast_2.5_7B_best.sh (flags
# grpo_fast no longer has) and debug/multi_node_grpo.sh (`\&\&python` with no space).
# Written for sphinx-rlresources' tests; not a copy.
python mason.py --num_nodes 2 --gpus 8 -- source configs/beaker_configs/ray_node_setup.sh \&\&python open_instruct/grpo_fast.py \
    --model_name_or_path Qwen/Qwen2.5-7B \
    --actor_num_gpus_per_node 6 \
    --max_token_length 2048 \
    --vllm_num_engines 10
