#!/bin/bash
# An allocation with an expert dimension (megatron's `e`), a shape the reader does not read.
# Written for sphinx-rlresources' tests; not a copy.
python3 -m areal.launcher.local examples/math/gsm8k_grpo.py \
    --config examples/math/gsm8k_grpo.yaml \
    allocation_mode=sglang:d4t2+megatron:d2p2t2e2
