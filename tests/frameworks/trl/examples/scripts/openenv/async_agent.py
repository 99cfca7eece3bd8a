# Idiom from huggingface/trl@f2cd577:examples/scripts/openenv/opencode.py (an AsyncGRPO run whose
# docstring starts vLLM's own `vllm serve` in one terminal and the trainer in another, each pinned
# with CUDA_VISIBLE_DEVICES; the model a flag of the script's own argparse parser).
# Written for sphinx-rlresources' tests; not a copy.

"""Asynchronous GRPO of a tool-using agent against a vLLM server.

Requirements:
  - A vLLM server reachable at `--vllm-url` (see below).

Run (3 GPUs: the server on two, the trainer on the third):

```sh
# Terminal 1 - serve the policy with NCCL weight sync.
CUDA_VISIBLE_DEVICES=0,1 VLLM_SERVER_DEV_MODE=1 vllm serve Qwen/Qwen3-8B \
    --tensor-parallel-size 2 --port 8000 \
    --weight-transfer-config '{"backend":"nccl"}'

# Terminal 2 - train.
CUDA_VISIBLE_DEVICES=2 python examples/scripts/openenv/async_agent.py \
    --model Qwen/Qwen3-8B --vllm-url http://localhost:8000
```
"""

import argparse

from trl.experimental.async_grpo import AsyncGRPOConfig, AsyncGRPOTrainer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="Qwen/Qwen3-1.7B")
    parser.add_argument("--vllm-url", default="http://localhost:8000")
    args = parser.parse_args()
    config = AsyncGRPOConfig(output_dir="async_agent", vllm_server_base_url=args.vllm_url)
    trainer = AsyncGRPOTrainer(model=args.model, args=config, train_dataset=[])
    trainer.train()


if __name__ == "__main__":
    main()
