#!/bin/bash
# Idiom from THUDM/slime@624b824:scripts/run-kimi-k2-Instruct.sh, whose launch line lacks
# its trailing backslash before the arrays; written here with OpenRLHF's dotted flags.

PERF_ARGS=(
   --ds.zero_stage 3
   --ds.adam_offload
)

python3 -m openrlhf.cli.train_ppo_ray \
   --actor.num_nodes 2 \
   --actor.num_gpus_per_node 8 \
   --ref.num_nodes 2 \
   --ref.num_gpus_per_node 8 \
   --reward.remote_url http://rm.internal:5000/get_reward \
   --vllm.num_engines 4 \
   --vllm.tensor_parallel_size 4 \
   --train.colocate_all \
   --actor.model_name_or_path Qwen/Qwen2.5-32B \
   --algo.advantage.estimator reinforce
   ${PERF_ARGS[@]} \
   --rollout.batch_size 64
