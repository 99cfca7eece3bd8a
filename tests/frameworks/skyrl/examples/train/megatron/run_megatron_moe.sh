# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/megatron/run_megatron_qwen3-30b-a3b.sh
# (NUM_GPUS is per node there; engines × TP fill both nodes) and
# examples/train/megatron/run_megatron_dapo_qwen3_4b_lora.sh (LoRA on Megatron).
# Written for sphinx-rlresources' tests; not a copy.
MODEL="Qwen/Qwen3-30B-A3B"
NUM_NODES=2
NUM_GPUS=8
ENGINES=2
ENGINE_TP=8

uv run --isolated --extra megatron -m skyrl.train.entrypoints.main_base \
  trainer.policy.model.path=$MODEL \
  trainer.strategy=megatron \
  trainer.placement.policy_num_nodes=$NUM_NODES \
  trainer.placement.ref_num_nodes=$NUM_NODES \
  trainer.placement.policy_num_gpus_per_node=$NUM_GPUS \
  trainer.placement.ref_num_gpus_per_node=$NUM_GPUS \
  trainer.policy.megatron_config.tensor_model_parallel_size=4 \
  trainer.policy.megatron_config.pipeline_model_parallel_size=2 \
  trainer.policy.megatron_config.expert_model_parallel_size=8 \
  trainer.policy.model.lora.rank=16 \
  generator.inference_engine.num_engines=$ENGINES \
  generator.inference_engine.tensor_parallel_size=$ENGINE_TP \
  trainer.algorithm.use_kl_loss=false
