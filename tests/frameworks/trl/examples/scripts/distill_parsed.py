# Idiom from huggingface/trl@f2cd577:examples/scripts/gkd.py (plain `python` launches with
# --model_name_or_path, the flags parsed by TrlParser into GKDConfig, which has no use_vllm:
# the student's completions come from transformers' generate) and sdpo.py (a config class of
# the example's own, subclassing TRL's).
# Written for sphinx-rlresources' tests; not a copy.

"""
# Full training:
python examples/scripts/distill_parsed.py \
    --model_name_or_path Qwen/Qwen2-0.5B-Instruct \
    --teacher_model_name_or_path Qwen/Qwen2-1.5B-Instruct \
    --per_device_train_batch_size 4 \
    --output_dir distilled

# LoRA:
python examples/scripts/distill_parsed.py \
    --model_name_or_path Qwen/Qwen2-0.5B-Instruct \
    --use_peft \
    --lora_r 64
"""

from trl import ModelConfig, ScriptArguments, TrlParser
from trl.experimental.gkd import GKDConfig, GKDTrainer


class LocalConfig(GKDConfig):
    temperature_floor: float = 0.1


if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, LocalConfig, ModelConfig))
    script_args, training_args, model_args = parser.parse_args_and_config()
    trainer = GKDTrainer(model=model_args.model_name_or_path, args=training_args)
    trainer.train()
