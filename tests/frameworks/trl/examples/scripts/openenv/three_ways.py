# Idiom from huggingface/trl@f2cd577:examples/scripts/openenv/browsergym.py (a docstring offering
# three launches -- the default without vLLM, colocated vLLM, a vLLM server -- and an argparse
# parser whose --use-vllm is a store_true flag passed to GRPOConfig).
# Written for sphinx-rlresources' tests; not a copy.

"""
GRPO against a toy environment.

Usage:
```sh
# Without vLLM (the default)
python examples/scripts/openenv/three_ways.py

# With vLLM in the trainer's process
python examples/scripts/openenv/three_ways.py --use-vllm

# With a vLLM server on its own GPU
CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen3-0.6B --port 8000
CUDA_VISIBLE_DEVICES=1 python examples/scripts/openenv/three_ways.py --use-vllm --vllm-mode server
```
"""

import argparse

from trl import GRPOConfig, GRPOTrainer


def main() -> None:
    parser = argparse.ArgumentParser(description="toy GRPO")
    parser.add_argument("--model-id", default="Qwen/Qwen3-0.6B")
    parser.add_argument("--use-vllm", action="store_true", default=False, help="Generate with vLLM (x).")
    parser.add_argument("--vllm-mode", choices=("colocate", "server"), default="colocate")
    args = parser.parse_args()
    trainer = GRPOTrainer(
        model=args.model_id,
        reward_funcs=[len],
        args=GRPOConfig(use_vllm=args.use_vllm, vllm_mode=args.vllm_mode if args.use_vllm else "colocate"),
    )
    trainer.train()


if __name__ == "__main__":
    main()
