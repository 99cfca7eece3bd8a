#!/bin/bash
# Idioms from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_prorlv2_math_hybrid_engine.sh
# and OpenRLHF/OpenRLHF@v0.8.11:examples/scripts/train_grpo_ray_hybrid_engine.sh, mixed up
# as a hurried upgrade leaves them (no release parses both); the engines do not fill the
# actor's GPUs, and group_norm has one sample per prompt.

python3 -m openrlhf.cli.train_ppo_ray \
   --actor.num_nodes 1 \
   --actor.num_gpus_per_node 8 \
   --ref_num_gpus_per_node 8 \
   --vllm.num_engines 2 \
   --vllm.tensor_parallel_size 2 \
   --train.colocate_all \
   --pretrain Qwen/Qwen2.5-1.5B \
   --algo.advantage.estimator group_norm \
   --rollout.n_samples_per_prompt 1
