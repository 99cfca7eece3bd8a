#!/bin/bash
# A launch naming a config that is not in the tree: what it could set stays unknown.
uv run rl @ examples/gone/rl.toml --deployment.num-infer-gpus 2
