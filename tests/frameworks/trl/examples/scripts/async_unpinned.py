# Idiom from huggingface/trl@f2cd577:examples/scripts/async_grpo.py (`vllm serve MODEL` then
# `accelerate launch` of the script, the model written in the AsyncGRPOTrainer call); here neither
# command pins its devices, so the server's data-parallel size and the trainer's processes add up.
# Written for sphinx-rlresources' tests; not a copy.

"""
pip install math_verify

VLLM_SERVER_DEV_MODE=1 vllm serve Qwen/Qwen3-0.6B --data-parallel-size 2 \
    --weight-transfer-config '{"backend":"nccl"}'

accelerate launch --num_processes 2 examples/scripts/async_unpinned.py
"""

from trl.experimental.async_grpo import AsyncGRPOConfig, AsyncGRPOTrainer

if __name__ == "__main__":
    trainer = AsyncGRPOTrainer(
        model="Qwen/Qwen3-0.6B",
        args=AsyncGRPOConfig(output_dir="async_unpinned", max_completion_length=1024),
        train_dataset=[],
    )
    trainer.train()
