#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_ppo_ray_hybrid_engine.sh
# (dotted flags, python3 -m directly, --train.colocate_all: every role on the actor's GPUs).
set -x

python3 -m openrlhf.cli.train_ppo_ray \
   --actor.num_nodes 1 \
   --actor.num_gpus_per_node 8 \
   --ref.num_nodes 1 \
   --ref.num_gpus_per_node 8 \
   --critic.num_nodes 1 \
   --critic.num_gpus_per_node 8 \
   --reward.num_nodes 1 \
   --reward.num_gpus_per_node 8 \
   --vllm.num_engines 4 \
   --vllm.tensor_parallel_size 2 \
   --vllm.gpu_memory_utilization 0.6 \
   --vllm.enable_sleep \
   --train.colocate_all \
   --ds.enable_sleep \
   --actor.model_name_or_path meta-llama/Llama-3.1-8B-Instruct \
   --reward.model_name_or_path example-org/llama-3.1-8b-rm \
   --ds.zero_stage 3 \
   --actor.gradient_checkpointing_enable \
   --data.max_len 3072 \
   --rollout.max_new_tokens 1024 \
   --rollout.batch_size 512 \
   --train.batch_size 128 \
   --train.micro_batch_size 4 \
   --rollout.micro_batch_size 8 \
   --algo.kl.init_coef 0.01

# Try tensor parallelism in DeepSpeed too:
#   --ds.tensor_parallel_size 2 \
