#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_ppo_with_reward_fn.sh
# (ray job submit with --no-wait; roles on GPUs of their own, ref with the actor and the
# reward model with the critic).

ray job submit --address="http://127.0.0.1:8265" \
   --runtime-env-json='{"working_dir": "/openrlhf", "pip": "requirements.txt"}' \
   --no-wait \
   -- python3 -m openrlhf.cli.train_ppo_ray \
   --ref.num_nodes 1 \
   --ref.num_gpus_per_node 4 \
   --actor.num_nodes 1 \
   --actor.num_gpus_per_node 4 \
   --critic.num_nodes 1 \
   --critic.num_gpus_per_node 2 \
   --reward.num_nodes 1 \
   --reward.num_gpus_per_node 2 \
   --train.colocate_actor_ref \
   --train.colocate_critic_reward \
   --vllm.num_engines 2 \
   --vllm.tensor_parallel_size 2 \
   --actor.model_name_or_path mistralai/Mistral-7B-Instruct-v0.3 \
   --reward.model_name_or_path example-org/mistral-7b-rm \
   --ds.lora.rank 16 \
   --ds.lora.target_modules q_proj,v_proj \
   --ds.adam_offload \
   --ds.zero_stage 2 \
   --rollout.batch_size 256
