# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/remote_inference_server/run_remote.sh
# (engines served elsewhere: only their TP is written, so their GPUs are unknown).
# Written for sphinx-rlresources' tests; not a copy.
ENGINE_TP=4
TRAIN_GPUS=4
uv run --isolated --extra fsdp -m skyrl.train.entrypoints.main_base \
  trainer.placement.colocate_all=False \
  trainer.placement.policy_num_gpus_per_node="$TRAIN_GPUS" \
  trainer.placement.ref_num_gpus_per_node="$TRAIN_GPUS" \
  generator.inference_engine.run_engines_locally=False \
  generator.inference_engine.external_proxy_url="http://127.0.0.1:8000" \
  generator.inference_engine.tensor_parallel_size="$ENGINE_TP" \
  $@
