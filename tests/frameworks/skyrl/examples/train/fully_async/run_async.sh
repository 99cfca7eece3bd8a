# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/fully_async/fully_async_run_gsm8k.sh
# (colocate_all=false: the policy and the engines each have GPUs; the reference shares the
# policy's by default; critic GPUs written without a critic path take none).
# Written for sphinx-rlresources' tests; not a copy.
: "${TRAIN_GPUS:=2}"
: "${ROLLOUT_GPUS:=2}"

uv run --isolated --extra fsdp -m examples.train.fully_async.main_fully_async \
  trainer.placement.colocate_all=false \
  trainer.placement.policy_num_gpus_per_node=$TRAIN_GPUS \
  trainer.placement.ref_num_gpus_per_node=$TRAIN_GPUS \
  trainer.placement.critic_num_gpus_per_node=$TRAIN_GPUS \
  generator.inference_engine.num_engines=$ROLLOUT_GPUS \
  generator.inference_engine.tensor_parallel_size=1 \
  trainer.strategy=fsdp2
