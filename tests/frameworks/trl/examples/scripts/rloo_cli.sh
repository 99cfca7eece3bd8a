#!/bin/bash
# Idiom from huggingface/trl@f2cd577:docs/source/clis.md (`trl rloo … --num_processes N`, no
# accelerate config: its backend is whatever accelerate's default config says).
trl rloo \
  --model_name_or_path Qwen/Qwen2.5-0.5B \
  --dataset_name trl-lib/DeepMath-103K \
  --num_processes 2
