# Idiom from NovaSky-AI/SkyRL@6dc221fc2^:skyrl-train/examples/gsm8k/run_gsm8k.sh (the skyrl_train
# package and the flat generator.* keys, both gone since 6dc221fc2).
# Written for sphinx-rlresources' tests; not a copy.
NUM_GPUS=8
uv run --isolated --extra vllm -m skyrl_train.entrypoints.main_base \
  trainer.placement.colocate_all=true \
  trainer.placement.policy_num_gpus_per_node=$NUM_GPUS \
  generator.num_inference_engines=4 \
  generator.inference_engine_tensor_parallel_size=2 \
  generator.backend=vllm \
  +generator.extra_key=1
