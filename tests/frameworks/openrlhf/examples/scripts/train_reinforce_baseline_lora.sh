#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_reinforce_baseline_hybrid_engine.sh
# (dotted flags, --algo.advantage.estimator reinforce_baseline) with a LoRA rank (--ds.lora.rank).
# Written for sphinx-rlresources' tests; not a copy.
set -x

python3 -m openrlhf.cli.train_ppo_ray \
   --actor.num_nodes 1 \
   --actor.num_gpus_per_node 4 \
   --ref.num_nodes 1 \
   --ref.num_gpus_per_node 4 \
   --vllm.num_engines 2 \
   --vllm.tensor_parallel_size 2 \
   --train.colocate_all \
   --actor.model_name_or_path Qwen/Qwen2.5-7B-Instruct \
   --reward.remote_url /workspace/reward_func.py \
   --ds.lora.rank 32 \
   --rollout.batch_size 64 \
   --rollout.n_samples_per_prompt 4 \
   --algo.kl.init_coef 0.01 \
   --algo.advantage.estimator reinforce_baseline \
   --algo.dynamic_filtering_enable
