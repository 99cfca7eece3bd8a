#!/usr/bin/env bash
# Fixture in the idiom of verl-project/verl@1dda039:examples/grpo_trainer/run_qwen3_8b_fsdp.sh
# (written for these tests): the GPU count chosen by a case on a machine toggle with a default,
# and the inference engine by an environment toggle.
MACHINE=${MACHINE:-h100}
INFER_BACKEND=${INFER_BACKEND:-vllm}
case $MACHINE in
    gb200) NGPUS_PER_NODE=4 ;;
    *) NGPUS_PER_NODE=8 ;;
esac
ARGS=(
    algorithm.adv_estimator=grpo
    actor_rollout_ref.model.path=Qwen/Qwen3-8B
    actor_rollout_ref.rollout.name=$INFER_BACKEND
    actor_rollout_ref.rollout.n=5
    trainer.n_gpus_per_node=$NGPUS_PER_NODE
    trainer.nnodes=${NNODES:-1}
)
python3 -m verl.trainer.main_ppo "${ARGS[@]}" "$@"
