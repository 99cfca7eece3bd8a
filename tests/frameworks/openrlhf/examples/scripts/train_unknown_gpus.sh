#!/bin/bash
# Idioms from THUDM/slime@624b824:scripts/run-qwen3-4B.sh (GPUs counted by nvidia-smi at
# run time) and OpenRLHF/OpenRLHF@v0.8.11:examples/scripts/train_reinforce_baseline_ray_agent_multiturn.sh
# (a positional argument with a default), in OpenRLHF's dotted flags.

GPUS=$(nvidia-smi -L | wc -l)
MODEL=$1

python3 -m openrlhf.cli.train_ppo_ray \
   --actor.num_nodes ${NODES:-1} \
   --actor.num_gpus_per_node $GPUS \
   --vllm.num_engines 2 \
   --train.colocate_all \
   --actor.model_name_or_path "$MODEL" \
   --reward.remote_url http://localhost:5000/get_reward \
   --algo.advantage.estimator rloo \
   --rollout.n_samples_per_prompt 4 \
   --algo.kl.init_coef 0
