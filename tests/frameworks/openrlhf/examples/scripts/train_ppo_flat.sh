#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@v0.8.11:examples/scripts/train_ppo_llama_with_remote_rm.sh
# (the flat flags of OpenRLHF 0.10.1 and older; a remote reward, so no reward model).
# The reference's sizes are left to OpenRLHF's defaults: one node of 8 GPUs.

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 -m openrlhf.cli.train_ppo_ray \
   --actor_num_nodes 1 \
   --actor_num_gpus_per_node 2 \
   --critic_num_nodes 1 \
   --critic_num_gpus_per_node 2 \
   --vllm_num_engines 2 \
   --vllm_tensor_parallel_size 1 \
   --pretrain OpenRLHF/Llama-3-8b-sft-mixture \
   --remote_rm_url http://localhost:5000/get_reward \
   --prompt_max_len 1024 \
   --generate_max_len 2048 \
   --micro_train_batch_size 4 \
   --rollout_batch_size 1024 \
   --zero_stage 3 \
   --bf16 \
   --gradient_checkpointing
