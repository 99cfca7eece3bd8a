# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/ppo/run_ppo.sh (a critic path makes
# PPO train a critic) and skyrl/train/config/config.py:588 (colocate_policy_ref=false gives the
# reference GPUs of its own).  Written for sphinx-rlresources' tests; not a copy.
uv run --isolated --extra fsdp -m skyrl.train.entrypoints.main_base \
  trainer.algorithm.advantage_estimator="gae" \
  trainer.policy.model.path="Qwen/Qwen2.5-1.5B-Instruct" \
  trainer.critic.model.path="Qwen/Qwen2.5-1.5B-Instruct" \
  trainer.placement.colocate_all=false \
  trainer.placement.colocate_policy_ref=false \
  trainer.placement.policy_num_gpus_per_node=2 \
  trainer.placement.ref_num_gpus_per_node=1 \
  trainer.placement.critic_num_gpus_per_node=2 \
  generator.inference_engine.num_engines=3 \
  generator.inference_engine.tensor_parallel_size=1 \
  trainer.max_tokens_per_microbatch=8192 \
  trainer.ckpt_interval=10 \
  trainer.ckpt_interval=10
