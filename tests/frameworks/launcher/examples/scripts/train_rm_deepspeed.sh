#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@17b714b:examples/scripts/train_rm.sh (`deepspeed --module` on
# OpenRLHF's reward-model trainer), here with the per-node count written and no hostfile:
# the nodes are the hostfile's, decided where it runs.
# Written for sphinx-rlresources' tests; not a copy.
set -x

deepspeed --num_gpus 4 --module openrlhf.cli.train_rm \
   --save_path ./checkpoint/llama3-8b-rm \
   --pretrain OpenRLHF/Llama-3-8b-sft-mixture \
   --zero_stage 3
