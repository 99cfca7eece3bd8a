"""The script reader: what a bash launcher tells its trainer, read without running it."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_rlresources.scripts.hydra import read_hydra
from sphinx_rlresources.scripts.interpreter import Interpreter
from sphinx_rlresources.scripts.lexer import Lexer
from sphinx_rlresources.scripts.reader import MAX_SCRIPT_CHARS, ScriptSettings, read_script


def _read(text: str) -> ScriptSettings:
    """The reading without read_script's last-resort guard against deep recursion."""
    interpreter = Interpreter()
    interpreter.run(Lexer(text).tokens())
    return read_hydra(interpreter)


def read(text: str) -> ScriptSettings:
    return read_script(textwrap.dedent(text))


def values(found: ScriptSettings) -> dict[str, str | None]:
    return {key: override.value for key, override in found.overrides.items()}


ISSUE_EXAMPLE = """\
MODEL_PATH=Qwen/Qwen2.5-7B-Instruct
nnodes=1
ngpu_per_node=1
total=$(( 16 * nnodes * ngpu_per_node ))
python3 -m verl.trainer.main_ppo --config-path=config --config-name='ppo_megatron_trainer.yaml' \\
    algorithm.adv_estimator=grpo \\
    data.train_batch_size=${total} \\
    actor_rollout_ref.model.path=$MODEL_PATH \\
    actor_rollout_ref.model.lora_rank=32 \\
    actor_rollout_ref.rollout.name=vllm \\
    trainer.n_gpus_per_node=${ngpu_per_node} \\
    trainer.nnodes=$nnodes $@
"""


def test_the_issue_example() -> None:
    found = read_script(ISSUE_EXAMPLE)
    assert values(found) == {
        "algorithm.adv_estimator": "grpo",
        "data.train_batch_size": "16",
        "actor_rollout_ref.model.path": "Qwen/Qwen2.5-7B-Instruct",
        "actor_rollout_ref.model.lora_rank": "32",
        "actor_rollout_ref.rollout.name": "vllm",
        "trainer.n_gpus_per_node": "1",
        "trainer.nnodes": "1",
    }
    assert (found.gpus, found.nnodes, found.n_gpus_per_node) == (1, 1, 1)
    assert found.config_name == "ppo_megatron_trainer.yaml"
    assert found.config_name_line == 5
    assert found.train_backend == "megatron"
    assert found.lora_rank == 32
    assert found.text("algorithm.adv_estimator") == "grpo"
    assert found.text("actor_rollout_ref.rollout.name") == "vllm"
    assert found.model_path == "Qwen/Qwen2.5-7B-Instruct"
    assert found.train_batch_size == 16
    assert found.trainer_line == 5
    assert found.entry_point == "verl.trainer.main_ppo"
    assert found.problems == []
    nnodes = found.overrides["trainer.nnodes"]
    assert (nnodes.raw, nnodes.line, nnodes.shown) == ("trainer.nnodes=$nnodes", 12, "trainer.nnodes=1")


def test_export_comments_quotes_and_continuations() -> None:
    found = read(
        """\
        #!/usr/bin/env bash
        # trainer.nnodes=99 in a comment is not an override
        export NODES=4   # four nodes
        export GPUS="8"
        NAME='Qwen/Qwen2-70B-Instruct'
        set -x
        python3 -m verl.trainer.main_ppo \\
            trainer.nnodes="$NODES" \\
            trainer.n_gpus_per_node=${GPUS} \\
            actor_rollout_ref.model.path="${NAME}" \\
            trainer.logger=['console','wandb'] \\
            trainer.project_name="my project" \\
            # a comment line inside the command ends it
            trainer.total_epochs=1
        """
    )
    assert found.gpus == 32
    assert found.model_path == "Qwen/Qwen2-70B-Instruct"
    assert found.overrides["trainer.logger"].value == "[console,wandb]"
    assert found.overrides["trainer.project_name"].value == "my project"
    assert found.overrides["trainer.nnodes"].line == 8
    assert "trainer.total_epochs" not in found.overrides  # after the comment: another command
    assert found.variables["NODES"] == "4"


def test_arithmetic() -> None:
    found = read(
        """\
        a=7
        b=$(( a * 2 + 1 ))
        c=$(( (a + 1) * 3 / 2 ))
        python3 t.py x.plus=$(( 1 + 2 * 3 )) x.paren=$(( (1 + 2) * 3 )) x.b=$b x.c=$c \\
            x.div=$(( -7 / 2 )) x.mod=$(( -7 % 2 )) x.pow=$(( 2 ** 10 )) x.neg=$(( -2 ** 2 )) \\
            x.hex=$(( 0x10 )) x.oct=$(( 010 )) x.dollar=$(( $a + ${b} )) x.str=$(( b * 2 ))
        """
    )
    assert values(found) == {
        "x.plus": "7",
        "x.paren": "9",
        "x.b": "15",
        "x.c": "12",
        "x.div": "-3",
        "x.mod": "-1",
        "x.pow": "1024",
        "x.neg": "4",
        "x.hex": "16",
        "x.oct": "8",
        "x.dollar": "22",
        "x.str": "30",
    }


@pytest.mark.parametrize(
    "expression",
    [
        "1 / 0",
        "5 % 0",
        "2 ** 64",
        "9 ** 9 ** 9",
        "2 ** -1",
        "9223372036854775807 + 1",
        "99999999999999999999999",
        "08",
        "1 << 2",
        "a > 1 ? 2 : 3",
        "x++",
        "(1 + 2",
        "",
        "$(date +%s)",
        "(" * 200 + "1" + ")" * 200,
        "1+" * 3000 + "1",
    ],
)
def test_arithmetic_that_is_unknown(expression: str) -> None:
    found = read_script(f"a=1\npython3 t.py x.y=$(( {expression} ))\n")
    assert found.overrides["x.y"].value is None


@pytest.mark.parametrize(
    ("line", "backend"),
    [
        ("python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer a.b=1", "megatron"),
        ("python3 -m verl.trainer.main_ppo --config-name ppo_megatron_trainer a.b=1", "megatron"),
        ("python3 -m verl.trainer.main_ppo -cn 'ppo_megatron_trainer.yaml' a.b=1", "megatron"),
        ("python3 -m verl.trainer.main_ppo a.b=1 actor_rollout_ref.actor.strategy=megatron", "megatron"),
        ("python3 -m verl.trainer.main_ppo a.b=1", "fsdp"),
        ("python3 -m verl.trainer.main_ppo --config-name=ppo_trainer a.b=1", "fsdp"),
        ("python3 -m verl.trainer.main_ppo a.b=1 actor_rollout_ref.actor.strategy=fsdp2", "fsdp"),
        ("python3 -m verl.trainer.main_ppo --config-name=my_own a.b=1", None),
        ("python3 -m verl.trainer.main_ppo --config-name=$CONFIG a.b=1", None),
        ("python3 verl/trainer/main_ppo.py a.b=1", "fsdp"),
        ("ray job submit --working-dir . -- python3 -m recipe.dapo.main_dapo a.b=1", None),
        ("python3 -m verl.trainer.main_ppo a.b=1 actor_rollout_ref.actor.strategy=$S", None),
    ],
)
def test_training_backend(line: str, backend: str | None) -> None:
    assert read_script(line + "\n").train_backend == backend


def test_lora_and_full() -> None:
    assert read_script("python3 t.py actor_rollout_ref.model.lora_rank=64\n").lora_rank == 64
    assert read_script("python3 t.py actor_rollout_ref.model.lora_rank=0\n").lora_rank == 0
    # Not set: verl's default config trains the full model ...
    assert read_script("python3 -m verl.trainer.main_ppo a.b=1\n").lora_rank == 0
    assert read_script("python3 t.py --config-name=ppo_trainer a.b=1\n").lora_rank == 0
    # ... but a config of one's own may set it, so it is unknown.
    assert read_script("python3 -m verl.trainer.main_ppo --config-name=mine a.b=1\n").lora_rank is None
    assert read_script("python3 -m recipe.dapo.main_dapo a.b=1\n").lora_rank is None
    assert read_script("python3 t.py actor_rollout_ref.model.lora_rank=$R\n").lora_rank is None


def test_unknown_values() -> None:
    found = read(
        """\
        FROM_SUBSTITUTION=$(nproc)
        FROM_BACKTICKS=`nproc`
        DEFAULTED=${NNODES:-4}
        if [ -n "$BIG" ]; then
            CONDITIONAL=16
        fi
        [ -n "$BIG" ] && CHAINED=16
        for n in 1 2; do LOOPED=$n; done
        f() { IN_FUNCTION=2; }
        python3 t.py a.sub=$FROM_SUBSTITUTION a.tick=$FROM_BACKTICKS a.default=$DEFAULTED \\
            a.cond=$CONDITIONAL a.chain=$CHAINED a.loop=$LOOPED a.func=$IN_FUNCTION \\
            a.home=$HOME/models/Qwen2.5-7B a.pos=$1 a.array=${ARR[0]} a.length=${#HOME}
        """
    )
    read_values = values(found)
    assert read_values.pop("a.default") == "4"  # the default the script documents for its environment
    assert found.overrides["a.default"].origin == "script-default"
    assert all(value is None for value in read_values.values()), read_values
    assert found.overrides["a.home"].tail == "/models/Qwen2.5-7B"
    assert found.problems == []  # all of them are set, defaulted or well-known


def test_a_default_when_the_script_sets_the_variable() -> None:
    found = read(
        """\
        NNODES=2
        EMPTY=
        python3 t.py a.b=${NNODES:-4} a.c=${EMPTY:-5} a.d=${EMPTY-6} a.e=${NNODES:+yes} a.f="${NNODES:-"x y"}"
        """
    )
    assert values(found) == {"a.b": "2", "a.c": "5", "a.d": "", "a.e": "yes", "a.f": "2"}


def test_a_script_argument_with_a_default_is_the_default_when_run_without_one() -> None:
    """``ENGINE=${1:-vllm}`` (verl's examples): run as written, with no argument, the default holds."""
    found = read(
        """\
        ENGINE=${1:-vllm}
        python3 t.py a.engine=$ENGINE a.bare=$1 a.alt=${1:+x} a.required=${1:?an engine} a.assigned=${1:=y}
        """
    )
    assert values(found) == {"a.engine": "vllm", "a.bare": None, "a.alt": "", "a.required": None, "a.assigned": "y"}
    assert found.overrides["a.engine"].origin == "script-default"
    inside = read("f() { python3 t.py a.inner=${1:-none} a.second=${2:-two} a.flag=${1:+given}; }\nf sglang\n")
    assert values(inside) == {"a.inner": "sglang", "a.second": "two", "a.flag": "given"}  # the call's arguments
    assert found.problems == []


def test_sanity_problems() -> None:
    found = read(
        """\
        model_path=Qwen/Qwen2-7B-Instruct
        python3 -m verl.trainer.main_ppo \\
            actor_rollout_ref.model.path=model_path \\
            trainer.nnodes=$NODES \\
            trainer.n_gpus_per_node=$(( GPUS * 2 )) \\
            trainer.default_local_dir=$HOME/ckpt \\
            trainer.project_name=${PROJECT:-tuning}
        """
    )
    assert [(p.line, p.key, p.message) for p in found.problems] == [
        (  # read as the variable it plainly means, so no longer a value blamed (issue 36)
            3,
            "",
            "actor_rollout_ref.model.path=model_path passes the word 'model_path', which is the name "
            "of a variable the script sets: a missing '$'? write actor_rollout_ref.model.path=$model_path; "
            "the checks read it as $model_path ('Qwen/Qwen2-7B-Instruct')",
        ),
        (
            4,
            "trainer.nnodes",
            "'trainer.nnodes=$NODES' uses $NODES, which the script does not set before this line (nor is it "
            "a usual environment variable); set NODES=... in the script, or write ${NODES:-default} if it "
            "is meant to come from the environment",
        ),
        (
            5,
            "trainer.n_gpus_per_node",
            "'trainer.n_gpus_per_node=$(( GPUS * 2 ))' uses $GPUS, which the script does not set before "
            "this line (nor is it a usual environment variable); set GPUS=... in the script, or write "
            "${GPUS:-default} if it is meant to come from the environment",
        ),
    ]


def test_an_unset_variable_through_another_variable() -> None:
    found = read_script("total=$(( 8 * nodes ))\npython3 t.py trainer.nnodes=$total\n")
    assert [p.message.split(",")[0] for p in found.problems] == ["'trainer.nnodes=$total' uses $nodes"]


def test_sourcing_a_file_may_set_anything() -> None:
    found = read_script("source ./env.sh\npython3 t.py trainer.nnodes=$NODES\n")
    assert found.problems == []
    assert found.nnodes is None


def test_arguments_in_a_variable_are_split() -> None:
    found = read(
        """\
        COMMON="trainer.nnodes=2 trainer.n_gpus_per_node=8"
        python3 -m verl.trainer.main_ppo $COMMON algorithm.adv_estimator=gae $EXTRA_ARGS "$@"
        """
    )
    assert found.gpus == 16
    assert found.text("algorithm.adv_estimator") == "gae"


def test_the_first_trainer_command_counts() -> None:
    found = read(
        """\
        python3 examples/data_preprocess/gsm8k.py --local_dir ~/data/gsm8k
        python3 -m verl.trainer.main_ppo trainer.nnodes=1 trainer.n_gpus_per_node=8 2>&1 | tee log.txt
        python3 -m verl.trainer.main_generation trainer.nnodes=4 trainer.n_gpus_per_node=8
        """
    )
    assert (found.gpus, found.trainer_line) == (8, 2)


def test_here_documents_and_plus_prefixes() -> None:
    found = read(
        """\
        cat > extra.yaml <<EOF
        trainer.nnodes=64
        EOF
        cat <<-'END'
        \ttrainer.nnodes=128
        \tEND
        python3 t.py +trainer.nnodes=2 ++trainer.n_gpus_per_node=4 ~trainer.val_before_train
        """
    )
    assert values(found) == {"trainer.nnodes": "2", "trainer.n_gpus_per_node": "4"}


def test_hydra_quotes_and_ansi_quotes() -> None:
    found = read_script("""python3 t.py a.b="'vllm'" a.c=$'sg\\x'lang a.d='8'\n""")
    assert found.text("a.b") == "vllm"
    assert found.integer("a.d") == 8
    assert found.overrides["a.c"].value == "sg\\xlang"


def test_no_trainer_command() -> None:
    found = read_script("echo hello\nX=1\n")
    assert (found.overrides, found.trainer_line, found.gpus, found.train_backend) == ({}, 0, None, None)


def test_a_script_too_large_is_not_read() -> None:
    found = read_script("#" * (MAX_SCRIPT_CHARS + 1))
    assert found.overrides == {}
    assert [p.line for p in found.problems] == [0]
    assert "more than the" in found.problems[0].message


def test_growing_values_become_unknown() -> None:
    text = "a=xxxxxxxx\n" + "a=$a$a\n" * 40 + "python3 t.py x.y=$a\n"
    assert read_script(text).overrides["x.y"].value is None


def test_deep_nesting_is_bounded() -> None:
    nested = "${a:-" * 500 + "1" + "}" * 500
    found = read_script(f"python3 t.py x.y={nested} x.z=$(( {'(' * 500}1{')' * 500} ))\n")
    assert found.overrides["x.y"].value is None
    assert found.overrides["x.z"].value is None


_SHELLISH = st.lists(
    st.sampled_from(
        [
            *"abXY_=.$(){}[]'\"`\\ \n\t#;&|<>-+*/%0123456789:?!@~",
            *("$((", "${", "<<EOF\n", "\nEOF\n", "trainer.nnodes=", "export ", "if ", " then ", "fi\n", "case ", ";;"),
        ]
    ),
    max_size=80,
).map("".join)


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=200), _SHELLISH))
def test_never_raises(text: str) -> None:
    found = _read(text)  # without read_script's last-resort guard
    for override in found.overrides.values():
        assert override.line >= 1


def test_a_known_end_survives_an_unknown_start() -> None:
    found = read(
        """\
        DATA_HOME=${DATA_HOME:-"${HOME}/verl"}
        MODEL_PATH=$DATA_HOME/models/Qwen3-235B-A22B
        LOCAL=$HOME
        LOCAL+=/hub/Qwen2-7B
        python3 t.py actor_rollout_ref.model.path="${MODEL_PATH}" a.local=$LOCAL a.lost=${LOCAL:-x}y
        """
    )
    path = found.overrides["actor_rollout_ref.model.path"]
    assert (path.value, path.tail) == (None, "/verl/models/Qwen3-235B-A22B")  # the default's known end too
    assert found.overrides["a.local"].tail == "/hub/Qwen2-7B"
    assert found.overrides["a.lost"].tail == "y"
    assert found.model_path is None


def test_a_plain_word_is_a_value_even_if_a_variable_has_its_name() -> None:
    found = read(
        """\
        prompt=x; nnodes=2; MODE=a; n_gpus=8
        python3 t.py data.prompt_key=prompt trainer.nnodes=nnodes a.mode=MODE a.gpus=n_gpus
        """
    )
    assert [p.message.rsplit("; ", 1)[1] for p in found.problems] == [
        "the checks read it as $nnodes ('2')",
        "the checks read it as $MODE ('a')",
        "the checks read it as $n_gpus ('8')",
    ]
    assert [found.text(k) for k in ("data.prompt_key", "trainer.nnodes", "a.mode", "a.gpus")] == [
        "prompt",
        "2",
        "a",
        "8",
    ]


def test_a_command_kept_in_a_here_document_is_read_by_read_d() -> None:
    # OpenRLHF's non-RL scripts keep the launch so (OpenRLHF/OpenRLHF@3c3be62 examples/scripts/train_sft.sh)
    found = read(
        """\
        N=4
        read -r -d '' ARGS <<EOF
        trainer.nnodes=2 \\
           trainer.n_gpus_per_node=$N
        EOF
        python3 -m verl.trainer.main_ppo $ARGS
        """
    )
    assert (found.gpus, found.text("trainer.n_gpus_per_node")) == (8, "4")


@pytest.mark.parametrize(
    ("reading", "expected"),
    [
        ("read -r -d '' ARGS <<'EOF'\na=1 trainer.nnodes=$N\nEOF\n", "$N"),  # a quoted delimiter: as written
        ("read -r -d '' ARGS <<-EOF\n\ta=1\n\ttrainer.nnodes=3\n\tEOF\n", "3"),  # <<-: leading tabs dropped
        ("read -r ARGS <<EOF\na=1 trainer.nnodes=3\nEOF\n", None),  # one line only: not read
        ("if [ -n x ]; then read -r -d '' ARGS <<EOF\na=1 trainer.nnodes=3\nEOF\nfi\n", None),  # may not run
        ("read -r -d '' ARGS <<EOF\na=1 trainer.nnodes=$(nproc)\nEOF\n", None),  # a command's output
    ],
)
def test_read_d_forms(reading: str, expected: str | None) -> None:
    found = read_script(reading + "python3 -m verl.trainer.main_ppo $ARGS trainer.n_gpus_per_node=8\n")
    assert values(found).get("trainer.nnodes") == expected
