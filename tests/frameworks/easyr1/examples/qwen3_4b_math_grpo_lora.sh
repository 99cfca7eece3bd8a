#!/bin/bash
# Idiom from hiyouga/EasyR1@df9778f:examples/qwen3_4b_math_grpo_lora.sh (verl.trainer.main,
# config=, OmegaConf overrides). Written for sphinx-rlresources' tests; not a copy.
set -x

MODEL_PATH=Qwen/Qwen3-4B  # replace it with your local file path

python3 -m verl.trainer.main \
    config=examples/config.yaml \
    data.max_response_length=4096 \
    worker.actor.model.model_path=${MODEL_PATH} \
    worker.actor.model.lora.rank=64 \
    worker.rollout.tensor_parallel_size=1 \
    trainer.n_gpus_per_node=2
