set -x
# Idiom from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_sft_mixtral_lora.sh: the launch's
# arguments kept in a variable by `read -r -d '' … <<EOF`, run as `deepspeed --module $…`
# (every visible GPU: the count is decided where it runs).
# Written for sphinx-rlresources' tests; not a copy.

read -r -d '' training_commands <<EOF
openrlhf.cli.train_sft \
    --data.max_len 4096 \
    --model.model_name_or_path Qwen/Qwen2.5-7B \
    --ds.zero_stage 3 \
    --ds.lora.rank 16
EOF

if [[ ${1} != "slurm" ]]; then
    deepspeed --module $training_commands
fi
