# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/gsm8k/run_gsm8k.sh
# (`: "${VAR:=default}"` defaults, colocated GRPO, `$@` passed through last).
# Written for sphinx-rlresources' tests; not a copy.
set -x

: "${DATA:="$HOME/data/math"}"
: "${NUM_GPUS:=4}"
: "${BACKEND:=vllm}"

uv run --isolated --extra fsdp -m skyrl.train.entrypoints.main_base \
  data.train_data="['$DATA/train.parquet']" \
  trainer.algorithm.advantage_estimator="grpo" \
  trainer.policy.model.path="Qwen/Qwen2.5-0.5B-Instruct" \
  trainer.placement.colocate_all=true \
  trainer.strategy=fsdp \
  trainer.placement.policy_num_gpus_per_node=$NUM_GPUS \
  trainer.placement.ref_num_gpus_per_node=$NUM_GPUS \
  generator.inference_engine.num_engines=$NUM_GPUS \
  generator.inference_engine.tensor_parallel_size=1 \
  generator.inference_engine.backend=$BACKEND \
  generator.inference_engine.gpu_memory_utilization=0.7 \
  generator.n_samples_per_prompt=4 \
  trainer.train_batch_size=256 \
  trainer.max_prompt_length=256 \
  generator.sampling_params.max_generate_length=512 \
  $@
