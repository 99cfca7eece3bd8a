# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/sft/run_sft_megatron.sh (main_sft's
# top-level keys; its strategy defaults to megatron, skyrl/train/config/sft_config.py:152).
# Written for sphinx-rlresources' tests; not a copy.
uv run --isolated --extra megatron \
    python -m skyrl.train.main_sft \
    model.path=Qwen/Qwen2.5-0.5B-Instruct \
    placement.num_gpus_per_node=2 \
    megatron_config.tensor_model_parallel_size=2
