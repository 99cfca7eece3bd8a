# Idioms from NovaSky-AI/SkyRL examples/train/megatron/run_megatron_moonlight.sh (a checkpoint
# downloaded to a folder of the user's naming, MODEL_NAME="$HOME/moonlight16b") and
# examples/train/megatron/run_megatron_qwen3.5.sh (an override given as `true`, then again as
# `True` through a variable: one boolean to Hydra).
# Written for sphinx-rlresources' tests; not a copy.
set -x

MODEL_NAME="$HOME/moonlight16b"
LANGUAGE_MODEL_ONLY=True

uv run --isolated --extra megatron -m skyrl.train.entrypoints.main_base \
  trainer.algorithm.advantage_estimator="grpo" \
  trainer.policy.model.path=$MODEL_NAME \
  trainer.strategy=megatron \
  trainer.placement.colocate_all=true \
  trainer.placement.policy_num_gpus_per_node=8 \
  trainer.placement.ref_num_gpus_per_node=8 \
  generator.inference_engine.num_engines=2 \
  generator.inference_engine.tensor_parallel_size=4 \
  generator.inference_engine.backend=vllm \
  generator.inference_engine.language_model_only=true \
  trainer.policy.megatron_config.tensor_model_parallel_size=4 \
  generator.inference_engine.language_model_only=$LANGUAGE_MODEL_ONLY \
  $@
