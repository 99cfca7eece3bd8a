#!/bin/bash
# Idiom from hiyouga/EasyR1@51636b2:examples/qwen2_5_vl_32b_geo3k_grpo.sh, on two nodes.
# Written for sphinx-rlresources' tests; not a copy.
set -x

export PYTHONUNBUFFERED=1
MODEL_PATH=Qwen/Qwen2.5-VL-32B-Instruct

python3 -m verl.trainer.main \
    config=examples/config.yaml \
    worker.actor.model.model_path=${MODEL_PATH} \
    worker.rollout.tensor_parallel_size=8 \
    trainer.nnodes=2
