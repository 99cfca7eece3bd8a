"""The shell the adapters meet in real launchers: loops and comments the reader must walk past, and nested launches.

Each case here made a real launcher unreadable before: OpenRLHF's Slurm script starts Ray
workers in ``for ((i = 1; i < n; i++))``, which read as the definition of a function
named ``for`` and swallowed the rest of the script; slime's arrays carry comments such
as ``# max-tokens-per-gpu is one CP rank's slice``, whose apostrophe read as a quote and
hid the launch.
"""

from __future__ import annotations

from sphinx_rlresources.scripts.frameworks.argv import (
    as_model,
    dangling,
    inner_commands,
    is_server,
    server_gpus,
    side_servers,
    visible_devices,
)
from sphinx_rlresources.scripts.frameworks.base import read_flags
from sphinx_rlresources.scripts.reader import interpret
from sphinx_rlresources.scripts.run import Origin


def names(text: str) -> list[str | None]:
    return [command.fields[0].value for command in interpret(text).commands]


def test_an_arithmetic_for_loop_is_a_loop_not_a_function() -> None:
    text = "for ((i = 1; i < n; i++)); do\n  echo $i\ndone\nlaunch --x 1\n"
    assert names(text) == ["echo", "launch"]
    assert interpret(text).commands[0].conditional
    assert not interpret(text).commands[1].conditional


def test_arithmetic_tests_after_if_and_while_are_not_functions() -> None:
    assert names("if (( 1 < 2 )); then\n  a\nfi\nwhile (( x )); do b; done\nc\n") == ["a", "b", "c"]


def test_a_comment_inside_an_array_may_hold_quotes_and_brackets() -> None:
    text = 'ARGS=(\n   --a 1\n   # one CP rank\'s slice (see below\n   --b 2\n)\nrun "${ARGS[@]}"\n'
    commands = interpret(text).commands
    assert [f.value for f in commands[-1].fields] == ["run", "--a", "1", "--b", "2"]
    assert [f.line for f in commands[-1].fields][1:] == [2, 2, 4, 4]


def test_a_hash_inside_a_word_of_an_array_is_no_comment() -> None:
    commands = interpret("A=(x#y 'it''s')\nrun ${A[@]}\n").commands
    assert [f.value for f in commands[-1].fields] == ["run", "x#y", "its"]


def test_bash_c_is_read_again_with_the_outer_values_and_lines() -> None:
    text = 'V=2.1\nsrun -N1 bash -c \\\n"pip install ray==$V \\\n && ray job submit -- python3 -m mod \\\n    --n 4"\n'
    command = interpret(text).commands[0]
    inner = inner_commands(command)
    assert [f.value for f in inner[0].fields] == ["pip", "install", "ray==2.1"]
    launch = inner[1]
    assert [f.value for f in launch.fields][-2:] == ["--n", "4"]
    assert launch.fields[-1].line == 5
    assert launch.conditional  # after && it may not run


def test_no_bash_c_no_inner_commands() -> None:
    assert inner_commands(interpret("srun bash script.sh\n").commands[0]) == []


def test_a_valued_flag_that_lost_its_value_is_unknown_not_a_switch() -> None:
    command = interpret("run --gpus $N --colocate --model m\n").commands[0]
    found = read_flags(command.fields, frozenset({"colocate"}), frozenset({"gpus", "model"}))
    assert found["gpus"].value is None
    assert found["gpus"].origin == "runtime"
    assert found["colocate"].value == ""
    assert found["model"].value == "m"


def test_lines_after_a_launch_that_start_with_flags_are_dangling() -> None:
    reading = interpret("A=(--x 1)\nrun --a 1 --b $((2*2))\n  ${A[@]} \\\n  --c 3\necho done\n")
    launch = reading.commands[0]
    assert [c.fields[0].value for c in dangling(reading, launch)] == ["--x"]


def test_side_servers_and_their_gpus() -> None:
    text = (
        "CUDA_VISIBLE_DEVICES=6,7 python3 -m sglang.launch_server --model-path m --tp 2 &\n"
        "vllm serve m --tensor-parallel-size 2 --data-parallel-size 2 &\n"
        "python3 -m vllm.entrypoints.openai.api_server --model m &\n"
        "CUDA_VISIBLE_DEVICES=$GPU python3 -m sglang.launch_server --model-path m &\n"
        "python3 train.py\n"
    )
    reading = interpret(text)
    servers = side_servers(reading, reading.commands[-1])
    assert [gpus.value for _, gpus in servers] == [2, 4, 1, None]
    assert servers[0][1].origin is Origin.DERIVED
    assert servers[2][1].origin is Origin.FRAMEWORK_DEFAULT
    assert servers[3][1].origin is Origin.RUNTIME
    assert not is_server(reading.commands[-1])
    assert visible_devices(reading.commands[-1]) is None


def test_a_server_whose_parallel_size_is_unknown() -> None:
    command = interpret("vllm serve m --tensor-parallel-size $TP\n").commands[0]
    assert server_gpus(command).value is None


def test_placeholders_are_no_model() -> None:
    for text in ("...", "<model_name>", "{model}", "/path/YOUR_MODEL", "null", ""):
        assert as_model(text) is None
    assert as_model("Qwen/Qwen2.5-7B") == "Qwen/Qwen2.5-7B"
    assert as_model("'/root/Qwen3-4B'") == "/root/Qwen3-4B"


def test_a_sum_with_a_framework_default_part_is_a_framework_default() -> None:
    from sphinx_rlresources.scripts.frameworks.base import derived
    from sphinx_rlresources.scripts.run import Found

    actor = Found(4, Origin.DERIVED, 3, "actor 1 × 4")
    reference = Found(8, Origin.FRAMEWORK_DEFAULT, 0, "reference 1 × 8")
    assert derived(12, [actor, reference], "sum").origin is Origin.FRAMEWORK_DEFAULT
    assert derived(8, [actor, actor], "sum").origin is Origin.DERIVED
    assert derived(8, [actor, Found(4, Origin.ENV, 2)], "sum").origin is Origin.ENV
