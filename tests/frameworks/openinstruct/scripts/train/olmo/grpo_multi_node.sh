#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044aa620:scripts/train/olmo3/7b_think_rl.sh and 7b_instruct_rl.sh
# (`${1:-image}`, `NUM_GPUS=${NUM_GPUS:-8}` for mason's --gpus, an exported model path, learners as
# a list over nodes).  Written for sphinx-rlresources' tests; not a copy.
BEAKER_IMAGE=${1:-someone/open_instruct_auto}
NUM_GPUS=${NUM_GPUS:-8}
export model_path=allenai/OLMo-2-1124-7B-DPO

uv run python mason.py \
    --image $BEAKER_IMAGE \
    --num_nodes 4 \
    --gpus ${NUM_GPUS} \
    -- source configs/beaker_configs/ray_node_setup.sh \&\& python open_instruct/grpo_fast.py \
        --model_name_or_path ${model_path} \
        --deepspeed_stage 3 \
        --deepspeed_offload_optimizer True \
        --num_learners_per_node 8 8 \
        --vllm_num_engines 16 \
        --vllm_gpu_memory_utilization 0.85 \
        --sequence_parallel_size 2 \
        --per_device_train_batch_size 2
