#!/bin/bash
# Idiom from PrimeIntellect-ai/prime-rl@559b447:docs/configuration.md ("uv run rl @ base.toml
# --trainer @ trainer.toml", dotted kebab-case overrides, --no-flag).  Written for sphinx-rlresources' tests; not a copy.
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen3-4B}
uv run rl @ examples/reverse-text/rl.toml \
  --trainer @ k8s/train.toml \
  --deployment.num-train-gpus 4 \
  --model.name "$MODEL" \
  --orchestrator.train.sampling.max-completion-tokens=2048 \
  --no-clean
