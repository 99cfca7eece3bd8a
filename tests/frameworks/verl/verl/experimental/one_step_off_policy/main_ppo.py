# Idiom from volcengine/verl@b178a3c:verl/experimental/one_step_off_policy/main_ppo.py:219
# (the entry point names its own config with @hydra.main). Written for sphinx-rlresources' tests; not a copy.
import hydra


@hydra.main(config_path="config", config_name="one_step_off_ppo_trainer", version_base=None)
def main(config: object) -> None:
    print(config)
