# Idiom from huggingface/trl@f2cd577:examples/scripts/harbor/data_agent.py (GRPOConfig built from
# a dict of keyword arguments, spread into the call).
# Written for sphinx-rlresources' tests; not a copy.

"""
python examples/scripts/spread_config.py --model Qwen/Qwen3-4B
"""

import argparse

from trl import GRPOConfig, GRPOTrainer

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="Qwen/Qwen3-4B")
args = parser.parse_args()
options = {"max_completion_length": 512}
GRPOTrainer(model=args.model, args=GRPOConfig(**options)).train()
