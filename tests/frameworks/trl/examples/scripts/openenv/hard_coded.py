# Idiom from huggingface/trl@f2cd577:examples/scripts/openenv/multi_env.py (the model written in
# the GRPOTrainer call, a GRPOConfig without use_vllm, and a docstring in a plain string whose
# lines end in `\\`: one backslash in the docstring's value).
# Written for sphinx-rlresources' tests; not a copy.

"""
Two environments in one GRPO run.

Usage:
    python examples/scripts/openenv/hard_coded.py \\
        --first-url https://example.invalid/one \\
        --second-url https://example.invalid/two
"""

import argparse

from trl import GRPOConfig, GRPOTrainer

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--first-url", default="https://example.invalid/one")
    parser.add_argument("--second-url", default="https://example.invalid/two")
    args, _ = parser.parse_known_args()
    trainer = GRPOTrainer(
        model="Qwen/Qwen3-1.7B",
        reward_funcs=[len],
        args=GRPOConfig(max_completion_length=256, log_completions=True),
    )
    trainer.train()
