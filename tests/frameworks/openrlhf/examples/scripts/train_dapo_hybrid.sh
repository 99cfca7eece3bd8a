#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@b020828:examples/scripts/train_dapo_ray_hybrid_engine.sh (flat flags:
# group_norm with --dynamic_filtering and clip-higher is OpenRLHF's DAPO) and, for the dotted spelling
# of the same switch, --algo.dynamic_filtering_enable in openrlhf/cli/train_ppo_ray.py.
# Written for sphinx-rlresources' tests; not a copy.
set -x

python3 -m openrlhf.cli.train_ppo_ray \
   --ref_num_nodes 1 \
   --ref_num_gpus_per_node 8 \
   --actor_num_nodes 1 \
   --actor_num_gpus_per_node 8 \
   --vllm_num_engines 4 \
   --vllm_tensor_parallel_size 2 \
   --colocate_all_models \
   --vllm_gpu_memory_utilization 0.6 \
   --init_kl_coef 1e-3 \
   --advantage_estimator group_norm \
   --dynamic_filtering \
   --dynamic_filtering_reward_range 0 1 \
   --eps_clip_low_high 0.2 0.28 \
   --pretrain Qwen/Qwen2.5-7B-Instruct \
   --remote_rm_url /workspace/reward_func.py \
   --micro_train_batch_size 4 \
   --train_batch_size 128 \
   --micro_rollout_batch_size 8 \
   --rollout_batch_size 128 \
   --n_samples_per_prompt 8 \
   --prompt_max_len 1024 \
   --generate_max_len 2048 \
   --zero_stage 3 \
   --bf16 \
   --gradient_checkpointing \
   --vllm_enable_sleep
