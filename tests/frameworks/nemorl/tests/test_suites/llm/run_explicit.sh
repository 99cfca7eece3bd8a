#!/bin/bash
# Idiom from NVIDIA-NeMo/RL@7ea279abfbeb:docs/guides/grpo.md (`uv run examples/run_grpo.py --config
# <recipe> key=value`, the overrides winning over the recipe).
# Written for sphinx-rlresources' tests; not a copy.
uv run examples/run_grpo.py \
    --config examples/configs/recipes/llm/grpo-qwen3-30ba3b-4n8g-megatron-lora.yaml \
    policy.megatron_cfg.tensor_model_parallel_size=8 \
    policy.model_name=Qwen/Qwen3-30B-A3B-Base
