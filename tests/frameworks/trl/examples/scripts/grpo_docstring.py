# Copyright notice of the example's authors would stand here.
#
# Idiom from huggingface/trl@f2cd577:examples/scripts/grpo_vlm.py (the launch in the module
# docstring: prose, `pip install`, a `# For <model>` heading, two launches) and
# examples/scripts/openenv/*.py (a `trl vllm-serve` started beside the trainer).
# Written for sphinx-rlresources' tests; not a copy.

# /// script
# dependencies = ["trl"]
# ///

"""
Train a small model with GRPO.

pip install math_verify

# For Qwen/Qwen3-1.7B (a server on its own GPU, the trainer on three more)
CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen3-1.7B &

CUDA_VISIBLE_DEVICES=1,2,3 accelerate launch \
    --config_file examples/accelerate_configs/zero_json.yaml \
    --num_processes 3 \
    examples/scripts/grpo_docstring.py \
    --model_name_or_path Qwen/Qwen3-1.7B \
    --use_vllm \
    --vllm_mode server \
    --max_completion_length 512

# For a bigger model, the same with eight processes:
accelerate launch \
    --config_file examples/accelerate_configs/zero_json.yaml \
    examples/scripts/grpo_docstring.py \
    --model_name_or_path Qwen/Qwen3-8B
"""

print("accelerate launch --num_processes 64 never.py")  # code is never read: only the docstring
