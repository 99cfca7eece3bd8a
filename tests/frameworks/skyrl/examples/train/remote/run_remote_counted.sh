# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/thunder_agent/scripts/r2egym_32b/run_trainer.sh
# (a "$PYTHON_BIN" -m "$ENTRYPOINT" launch whose external engines are written out: 2 × TP2).
# Written for sphinx-rlresources' tests; not a copy.
PYTHON_BIN="${PYTHON_BIN:-python3}"
ENTRYPOINT="examples.train.remote.main_remote"
EXTRA_ARGS=()
EXTRA_ARGS+=("trainer.algorithm.use_kl_loss=false")

"$PYTHON_BIN" -m "$ENTRYPOINT" \
  trainer.placement.colocate_all=false \
  trainer.placement.policy_num_nodes=1 \
  trainer.placement.policy_num_gpus_per_node=4 \
  generator.inference_engine.run_engines_locally=false \
  generator.inference_engine.num_engines=2 \
  generator.inference_engine.tensor_parallel_size=2 \
  "${EXTRA_ARGS[@]}"
