#!/bin/bash
# Idiom from huggingface/trl@f2cd577:docs/source/grpo_trainer.md (SLURM: four nodes train with
# accelerate, a fifth serves vLLM; both started with srun in the background).
#SBATCH --nodes=5
#SBATCH --gres=gpu:8

NODELIST=($(scontrol show hostnames $SLURM_JOB_NODELIST))

srun --nodes=4 --ntasks=4 accelerate launch \
     --config_file examples/accelerate_configs/fsdp2_two_nodes.yaml \
     --num_processes 32 \
     --num_machines 4 \
     --main_process_ip ${NODELIST[0]} \
     --machine_rank $SLURM_PROCID \
     train_grpo.py \
     --vllm_server_host ${NODELIST[4]} &

srun --nodes=1 --ntasks=1 trl vllm-serve --model Qwen/Qwen2.5-72B --tensor_parallel_size 8 &

wait
