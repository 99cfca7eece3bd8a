#!/bin/bash
# Idioms from OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_ppo_ray_slurm.sh
# (#SBATCH header, Ray workers started in for ((…)), the whole submission one
# double-quoted string given to `srun … bash -c`, JSON escaped inside it).
#SBATCH -N 2
#SBATCH --ntasks-per-node=1

RAY_VERSION=2.40.0
nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST")
nodes_array=( $nodes )
head=${nodes_array[0]}

for ((i = 1; i < SLURM_JOB_NUM_NODES; i++)); do
  srun --nodes=1 --ntasks=1 -w "${nodes_array[$i]}" bash -c "ray start --address $head:6379 --block" &
done
sleep 20

srun --overlap --nodes=1 --ntasks=1 -w "$head" bash -c \
"pip install ray[default]==$RAY_VERSION \
&& ray job submit --address=http://localhost:8265 \
    --runtime-env-json='{\"working_dir\": \"/openrlhf\"}' \
    -- python3 -m openrlhf.cli.train_ppo_ray \
    --actor.num_nodes 1 \
    --actor.num_gpus_per_node 4 \
    --ref.num_nodes 1 \
    --ref.num_gpus_per_node 4 \
    --vllm.num_engines 2 \
    --vllm.tensor_parallel_size 2 \
    --train.colocate_all \
    --train.async_enable \
    --algo.advantage.estimator group_norm \
    --rollout.n_samples_per_prompt 4 \
    --actor.model_name_or_path Qwen/Qwen2.5-7B-Instruct \
    --train.agent_func_path /openrlhf/examples/python/agent_func.py" &>> job.log
