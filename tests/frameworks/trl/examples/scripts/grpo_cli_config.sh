#!/bin/bash
# Idiom from huggingface/trl@f2cd577:docs/source/clis.md (`trl grpo --config cfg.yaml
# --accelerate_config zero2`: a config of TRL's own named, the counts in the CLI config).
trl grpo --config examples/cli_configs/grpo.yaml --accelerate_config zero2
