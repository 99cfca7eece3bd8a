#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@17b714b:examples/scripts/train_rm.sh (`deepspeed --module`), with
# the node and GPU counts written on the launcher as DeepSpeed's multi-node launches do.
# Written for sphinx-rlresources' tests; not a copy.
deepspeed --hostfile hostfile --num_nodes 2 --num_gpus 8 --module openrlhf.cli.train_sft \
   --pretrain meta-llama/Llama-3.1-8B --zero_stage 2
