#!/bin/bash
# Idiom of torch's own launcher (torch/distributed/run.py: --nproc-per-node, --nnodes 1 by default)
# as open-instruct's and OpenRLHF's non-RL scripts call it through `torchrun`.
# Written for sphinx-rlresources' tests; not a copy.
pip install -e .
torchrun --standalone --nproc-per-node=8 train.py --config configs/sft.yaml
