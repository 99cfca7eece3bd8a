# Idiom from verl-project/verl-recipe@48ea0a7:dapo/main_dapo.py (a recipe's trainer, whose
# config lies beside it; the checkout is verl's recipe/ folder). Written for sphinx-rlresources' tests; not a copy.
import hydra


@hydra.main(config_path="config", config_name="dapo_trainer", version_base=None)
def main(config: object) -> None:
    print(config)
