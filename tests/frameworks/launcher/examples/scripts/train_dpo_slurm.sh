#!/bin/bash
# Idiom from OpenRLHF/OpenRLHF@031bc26:examples/scripts/train_nonrl_slurm.sh (#SBATCH headers,
# torchrun inside `srun … bash -c "…"`, its node count from $SLURM_NNODES).
# Written for sphinx-rlresources' tests; not a copy.
#SBATCH -J dpo
#SBATCH -N 2                      # two nodes of eight
#SBATCH --ntasks-per-node=1
#SBATCH --exclusive

readonly GPUS_PER_NODE=8
readonly PROJECT_PATH=/workspace/openrlhf
mkdir -p logs

srun --container-mounts="$PROJECT_PATH:/openrlhf" \
    bash -c "cd /openrlhf; torchrun \
--nproc_per_node $GPUS_PER_NODE --nnodes \$SLURM_NNODES --node_rank \$SLURM_PROCID \
-m openrlhf.cli.train_dpo --pretrain meta-llama/Llama-3.1-8B-Instruct --zero_stage 3" &>> logs/dpo.log
