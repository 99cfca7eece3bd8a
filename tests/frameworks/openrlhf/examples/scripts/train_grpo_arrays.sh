#!/bin/bash
# Idioms from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_reinforce_baseline_hybrid_engine.sh
# (flag arrays with comment lines inside, expanded unquoted after `ray job submit --`) and
# the ${VAR:-default} environment idiom of THUDM/slime@624b824:scripts/run-glm4.7-355B-A32B.sh.

NUM_GPUS=${NUM_GPUS:-4}
POLICY="Qwen/Qwen3-4B"

MODEL_ARGS=(
   --actor.model_name_or_path ${POLICY}
   # --reward.model_name_or_path ${REWARD} (the agent scores, so there's no reward model)
   --train.agent_func_path examples/python/agent_func.py
)

PLACEMENT_ARGS=(
   --ref.num_nodes 1
   --ref.num_gpus_per_node ${NUM_GPUS}
   --actor.num_nodes 1
   --actor.num_gpus_per_node ${NUM_GPUS}
   --vllm.num_engines $((NUM_GPUS / 2))
   --vllm.tensor_parallel_size 2
   --train.colocate_all

   # --ds.adam_offload   (don't: it's slow)
   --ds.zero_stage 3
   --ds.ring_attn_size 2
)

ALGO_ARGS=(
   --algo.advantage.estimator reinforce_baseline
   --rollout.n_samples_per_prompt 8
   --algo.kl.init_coef 1e-3
   --algo.kl.use_loss
   --train.dynamic_batch_enable
   --train.max_tokens_per_gpu 20000
)

ray job submit --address="http://127.0.0.1:8265" \
   --runtime-env-json='{"working_dir": "/openrlhf"}' \
   -- python3 -m openrlhf.cli.train_ppo_ray \
   ${MODEL_ARGS[@]} \
   ${PLACEMENT_ARGS[@]} \
   ${ALGO_ARGS[@]}
