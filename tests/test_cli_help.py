"""The command line explains itself: every command's help states its defaults and exit statuses.

The help is also what docs/cli.rst shows (generated from the parser by ``rlr-cli-help``
in docs/_ext), so these tests hold the reference page to the same standard.
"""

from __future__ import annotations

import argparse
import re

import pytest

from sphinx_rlresources.cli import main as cli

PARSER = cli.build_parser()
COMMANDS = cli.command_parsers(PARSER)


def test_the_top_level_help_points_to_each_commands_help_and_the_docs(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "rlresources COMMAND --help" in text
    assert cli.DOCS_URL in text
    for name in COMMANDS:
        assert f"    {name} " in text  # every command is listed with its one-line summary


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_states_its_exit_statuses(name: str) -> None:
    text = COMMANDS[name].format_help()
    assert "exit status:\n  0  " in text, text
    assert "\n  2  the command could not run" in text


def _valued(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options that take a value and are offered in the help."""
    return [
        action
        for action in parser._actions
        if action.option_strings and action.nargs != 0 and action.help not in (None, argparse.SUPPRESS)
    ]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_that_takes_a_value_says_its_default_and_has_a_readable_placeholder(name: str) -> None:
    for action in _valued(COMMANDS[name]):
        flag = action.option_strings[-1]
        assert action.required or "default" in action.help or "needed" in action.help, (name, flag, action.help)
        # a placeholder of our choosing (DIR, TOKENS, FRACTION), not argparse's GPU_MEMORY_UTILIZATION
        assert action.metavar is not None or action.choices is not None, (name, flag)
        if isinstance(action.metavar, str):
            assert "_" not in action.metavar and len(action.metavar) <= 12, (name, flag, action.metavar)


def test_estimate_shows_which_options_go_together() -> None:
    text = COMMANDS["estimate"].format_help()
    usage = text.split("\n\n", 1)[0]
    assert "estimate --model MODEL --device DEVICE" in usage
    assert "estimate --row FILE:LINE" in usage
    assert "--model and --device are needed together" in text


def test_stale_says_what_it_does_for_each_command() -> None:
    lint = COMMANDS["lint"].format_help()
    render = COMMANDS["render"].format_help()
    assert "(rlresources.stale)" in lint
    assert "the table and the exit status stay the same" in " ".join(render.split())
    # new writes the same row with or without it: accepted, but not offered
    assert "--stale" not in COMMANDS["new"].format_help()
    assert COMMANDS["new"].parse_args(["x.sh", "--stale"]).stale is True


@pytest.mark.parametrize(
    ("argv", "notes"),
    [
        (
            ["--model", "Llama-3-8B", "--device", "A100"],
            [
                "rlresources: note: --model 'Llama-3-8B' is read as Llama-3.1-8B",
                "rlresources: note: --device 'A100' is read as A100-80G",
            ],
        ),
        (["--model", "llama-3.1-8b", "--device", "h100"], []),  # case alone is no other name
    ],
)
def test_a_name_read_as_another_is_said(capsys: pytest.CaptureFixture[str], argv: list[str], notes: list[str]) -> None:
    status = cli.main(["estimate", *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert status in (0, 1)
    assert captured.err.splitlines() == notes
    assert captured.out.startswith("{")  # the JSON on stdout stays clean


_SLIPS = re.compile(r"%%|%\(\w*\)?[sd]?|%[sdr]\b|\\n|\w [,.;](?=\s|$)")
"""What a help string shows when its formatting went wrong: a doubled ``%`` that nothing
%-formats (argparse formats help and usage, not description or epilog), a ``%(name)s``
or ``%s`` left over, a written ``\\n``, or a space before punctuation.  (Braces are
meant: a choice list ``{verl}``, a URL template's ``{path}``.)"""


@pytest.mark.parametrize("name", ["", *sorted(COMMANDS)])
def test_no_formatting_slip_shows_in_a_help(name: str) -> None:
    text = (COMMANDS[name] if name else PARSER).format_help()
    slips = [(m.group(0), text[max(0, m.start() - 40) : m.end() + 20]) for m in _SLIPS.finditer(text)]
    assert slips == []
