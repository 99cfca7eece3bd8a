# Idiom from volcengine/verl@b178a3c:examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn.sh
# (--config-path under "$(pwd)", the project root, and a --config-name of the examples).
# Written for sphinx-rlresources' tests; not a copy.
set -x

PROJECT_DIR="$(pwd)"
CONFIG_PATH="$PROJECT_DIR/examples/sglang_multiturn/config"

python3 -m verl.trainer.main_ppo \
    --config-path="$CONFIG_PATH" \
    --config-name='gsm8k_multiturn_grpo' \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=128 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-3B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.rollout.n=8 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 "$@"
