# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/algorithms/gspo/run_gspo_gsm8k.sh
# (a script that only delegates to another with extra overrides, which win).
# Written for sphinx-rlresources' tests; not a copy.

bash examples/train/gsm8k/run_gsm8k.sh \
  trainer.algorithm.policy_loss_type="gspo" \
  generator.n_samples_per_prompt=8 \
  "$@"
