#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_sft.sh (the command built in a
# here-document, run by `deepspeed --module`): supervised training, not an RL launch.

read -r -d '' training_commands <<EOF_CMD
openrlhf.cli.train_sft \
   --max_len 2048 \
   --pretrain meta-llama/Llama-3.1-8B \
   --zero_stage 2
EOF_CMD

if [[ ${1} != "slurm" ]]; then
    deepspeed --module $training_commands
fi
