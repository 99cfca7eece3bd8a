"""The engine versions a script's comments demand: read in the idioms real scripts use, and nothing else.

Each line is written for this test in the idiom of a public script: volcengine/verl@b178a3c
examples/tuning/70b/qwen2-70b_grpo_32_h800_fsdp_vllm.sh:3 (``must be >=``),
examples/grpo_trainer/run_qwen3_vl-8b-megatron.sh:5 (``dependency: vllm>=``), and the
lines there that name a version without demanding it (an upper bound, a docker tag).
"""

from __future__ import annotations

import pytest

from sphinx_rlresources.scripts.records import SCRIPT_COMMENT, requirements


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("#### important: vllm version must be >= 0.8.3", ("vllm", "0.8.3")),
        ("# dependency: vllm>=0.11.0, megatron-lm>=0.13, mbridge", ("vllm", "0.11.0")),
        ("# requires vllm>=0.8.3", ("vllm", "0.8.3")),
        ("# needs vLLM 0.8.3 or newer", ("vllm", "0.8.3")),
        ("# sglang 0.4.6+ (for the async server)", ("sglang", "0.4.6")),
    ],
)
def test_a_comment_that_states_a_minimum_is_read(line: str, expected: tuple[str, str]) -> None:
    (found,) = requirements(f"set -x\n{line}\npython3 -m verl.trainer.main_ppo\n")
    assert (found.engine, found.version, found.line, found.source) == (*expected, 2, SCRIPT_COMMENT)


@pytest.mark.parametrize(
    "line",
    [
        "# If you are using vllm<=0.6.3, you might need to set the following environment variable",
        "# tested on docker://verlai/verl:app-verl0.5-transformers4.55.4-vllm0.10.0-mcore0.13.0-te2.2",
        "export VLLM_ALLREDUCE_USE_SYMM_MEM=0 # for vllm0.11.0 with TP",
        "# the image ships vllm 0.8.4+cu126",
    ],
)
def test_a_version_that_is_no_minimum_is_not_read(line: str) -> None:
    assert requirements(line) == ()
