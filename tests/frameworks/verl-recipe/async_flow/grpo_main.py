# Idiom from verl-project/verl-recipe@48ea0a7:async_flow/grpo_main.py (a trainer whose config
# gives each role GPUs of its own). Written for sphinx-rlresources' tests; not a copy.
import hydra


@hydra.main(config_path="config", config_name="async_grpo", version_base=None)
def main(config: object) -> None:
    print(config)
