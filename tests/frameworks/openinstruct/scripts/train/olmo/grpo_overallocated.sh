#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044aa620:scripts/train/tulu3/grpo_fast_8b_code_sft.sh (mason asks
# for more nodes than the learners and engines use).  Written for sphinx-rlresources' tests; not a copy.
python mason.py --num_nodes 4 --gpus 8 -- python open_instruct/grpo_fast.py \
    --model_name_or_path allenai/open_instruct_dev \
    --num_learners_per_node 8 \
    --vllm_num_engines 2 \
    --vllm_tensor_parallel_size 4
