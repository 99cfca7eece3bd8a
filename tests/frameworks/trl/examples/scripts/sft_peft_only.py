# Idiom from huggingface/trl@f2cd577:examples/scripts/sft_vlm_gemma3.py (accelerate launch with
# an accelerate config and only --use_peft among TRL's own flags; TrlParser with SFTConfig).
# Written for sphinx-rlresources' tests; not a copy.

"""
Fine-tune on image-text pairs.

accelerate launch \
    --config_file examples/accelerate_configs/fsdp2_two_nodes.yaml \
    examples/scripts/sft_peft_only.py \
    --dataset_name some/dataset \
    --model_name_or_path google/gemma-3-4b-it \
    --use_peft \
    --lora_target_modules all-linear
"""

from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser

if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
    script_args, training_args, model_args = parser.parse_args_and_config()
    SFTTrainer(model=model_args.model_name_or_path, args=training_args).train()
