"""Hostile settings: ``pyproject.toml`` and ``docs/conf.py`` arrive in pull requests like any file.

Each test plays a pull request that changes ``[tool.rlresources]`` (or conf.py) against
the commands and the build: the root never widens the repository, the data and script
folders stay in the root, a pattern never decides how long a check runs, a URL template
fills plain fields only, and an absurd size label is a message, never a traceback.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from helpers import ROW, SCRIPT, cli, commit, git, make_repo, sphinx_project
from helpers import sphinx_build as build

from sphinx_rlresources.core.globs import compile_glob
from sphinx_rlresources.core.naming import MAX_PATTERN, NAME_MAX, naming_rule, rule_problem
from sphinx_rlresources.core.query import closest_size
from sphinx_rlresources.core.urls import url_template_problem

SECRET = "TOKEN=ghp_not_for_your_eyes"
GOOD = "size: 7B\nentries:\n" + ROW


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (a ``.git`` folder marks its top) with one row, and a secret beside it."""
    root = make_repo(tmp_path, GOOD)
    (root / ".git").mkdir()
    outside = tmp_path / "outside"
    (outside / "data").mkdir(parents=True)
    (outside / "data" / "7b.yaml").write_text(GOOD.replace("Xiangyongan", SECRET), "utf-8")
    (outside / "examples" / "tuning").mkdir(parents=True)
    (outside / "examples" / "tuning" / "x.sh").write_text(f"export {SECRET}\n", "utf-8")
    return root


def settings(folder: Path, **values: object) -> None:
    lines = "".join(f"{key} = {value!r}\n".replace("'", '"') for key, value in values.items())
    (folder / "pyproject.toml").write_text(f"[tool.rlresources]\n{lines}", "utf-8")


# -- the root narrows the repository, never widens it --------------------------------------

WIDE_ROOTS = ["..", "/", "../outside", "./../..", "{outside}", "out"]


@pytest.mark.parametrize("command", [["lint"], ["render", "7b"], ["sync", "README.md"], ["inspect", SCRIPT]])
@pytest.mark.parametrize("value", WIDE_ROOTS)
def test_a_root_outside_the_repository_stops_every_command(
    repo: Path, capsys: pytest.CaptureFixture[str], value: str, command: list[str]
) -> None:
    (repo / "out").symlink_to(repo.parent / "outside", target_is_directory=True)
    value = value.format(outside=repo.parent / "outside")
    settings(repo, root=value)
    (repo / "README.md").write_text("<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n", "utf-8")
    status, out, err = cli(repo, capsys, *command)
    assert status == 2, (out, err)
    assert err.startswith(f"rlresources: error: pyproject.toml: tool.rlresources.root = '{value[:20]}")
    assert "the root may narrow the repository, never widen it: name '.' or a folder in it" in err
    assert ("symbolic link" in err) == (value == "out")
    assert SECRET not in out + err
    assert (repo / "README.md").read_text("utf-8").count("\n") == 2  # nothing written


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"data": "../outside/data"}, "data"),
        ({"data": "/"}, "data"),
        ({"data": "{outside}/data"}, "data"),
        ({"data": "linked"}, "data"),
        ({"root": "examples", "data": "data"}, "data"),  # inside the repository, outside the root
        ({"scripts": ["examples/tuning", "../outside/examples/tuning"]}, "scripts"),
        ({"scripts": ["linked"]}, "scripts"),
    ],
)
def test_the_data_and_script_folders_stay_inside_the_root(
    repo: Path, capsys: pytest.CaptureFixture[str], values: dict[str, object], key: str
) -> None:
    (repo / "linked").symlink_to(repo.parent / "outside" / "data", target_is_directory=True)
    outside = str(repo.parent / "outside")
    settings(repo, **{k: v.format(outside=outside) if isinstance(v, str) else v for k, v in values.items()})
    status, out, err = cli(repo, capsys, "lint")
    assert status == 2
    assert err.startswith(f"rlresources: error: pyproject.toml: tool.rlresources.{key}")
    assert "outside the root" in err and ("lives inside the root" in err or "name real folders in the root" in err)
    assert SECRET not in out + err


def test_a_narrower_root_and_a_monorepo_root_are_accepted(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings(repo, root=".", data="data", scripts=["examples/tuning"])
    assert cli(repo, capsys, "lint")[0] == 0
    package = repo / "packages" / "tool"
    package.mkdir(parents=True)
    settings(package, root="../..", data="../../data", scripts=["../../examples/tuning"])
    status, out, err = cli(package, capsys, "lint")
    assert (status, err) == (0, ""), out  # the git work tree's top holds the package: not wider than the repository
    settings(repo, root="examples", data="examples/tuning")
    status, _out, err = cli(repo, capsys, "lint")
    assert "tool.rlresources" not in err  # narrowed: the settings are accepted


def test_without_git_the_folder_of_pyproject_is_the_repository(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".git").rmdir()
    settings(repo, root="..")
    status, _out, err = cli(repo, capsys, "lint")
    assert status == 2 and "leads outside the repository" in err


def test_the_build_keeps_the_root_and_data_of_conf_py_inside(repo: Path, tmp_path: Path) -> None:
    sphinx_project(repo, 'rlresources_root = "/"\n')
    status, warnings = build(repo, tmp_path / "html", "-b", "html")
    assert status == 0
    assert any(
        "rlresources_root = '/' leads outside the repository" in w and "the repository's top is used" in w
        for w in warnings
    ), warnings
    assert SECRET not in (tmp_path / "html" / "index.html").read_text("utf-8")
    sphinx_project(repo, f'rlresources_data_dir = "{repo.parent / "outside" / "data"}"\n')
    status, warnings = build(repo, tmp_path / "html2", "-b", "html")
    assert any("leads outside the root" in w and "the root's data folder is used" in w for w in warnings), warnings
    assert SECRET not in (tmp_path / "html2" / "index.html").read_text("utf-8")
    assert "Xiangyongan" in (tmp_path / "html2" / "index.html").read_text("utf-8")  # the root's own data


def test_the_build_refuses_a_pyproject_root_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    settings(repo, root="..", data="../outside/data")
    (repo / "conf.py").write_text('extensions = ["sphinx_rlresources"]\n', "utf-8")
    (repo / "index.rst").write_text("Sizes\n=====\n\n.. rl-resource-table:: 7b\n", "utf-8")
    status, warnings = build(repo, tmp_path / "html", "-b", "html")
    assert status == 0
    assert any("tool.rlresources.root = '..' leads outside the repository" in w for w in warnings), warnings
    assert any("[tool.rlresources] is not used by the build" in w for w in warnings)
    assert SECRET not in (tmp_path / "html" / "index.html").read_text("utf-8")


# -- patterns never decide how long a check runs ---------------------------------------------

REFUSED_PATTERNS = [
    ("{model}{task}.sh", "another field can follow with nothing between them"),
    ("{model}[{task}].sh", "another field can follow with nothing between them"),
    ("{model}[_x]{task}.sh", "another field can follow with nothing between them"),
    ("{gpus}{nodes}.sh", "another field can follow with nothing between them"),
    ("[[[[{model}]]]].sh", "nests optional parts more than 3 deep at character 4"),
    ("[" * 5000 + "{model}" + "]" * 5000, f"characters long; a pattern has at most {MAX_PATTERN}"),
    ("_".join(["{any}"] * 60) + ".sh", f"characters long; a pattern has at most {MAX_PATTERN}"),
]


@pytest.mark.parametrize(("pattern", "words"), REFUSED_PATTERNS, ids=[p[1][:20] + p[0][:12] for p in REFUSED_PATTERNS])
def test_a_pattern_that_could_backtrack_or_crash_is_a_configuration_error(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, pattern: str, words: str
) -> None:
    problem = rule_problem(pattern)
    assert problem is not None and words in problem
    settings(repo, naming=pattern)
    status, _out, err = cli(repo, capsys, "lint")
    assert status == 2 and err.startswith("rlresources: error: pyproject.toml: tool.rlresources.naming ")
    assert words in err
    (repo / "pyproject.toml").unlink()
    sphinx_project(repo, f"rlresources_naming = {pattern!r}\n")
    status, warnings = build(repo, tmp_path / "html", "-b", "html")
    assert status == 0 and any(words in w and "the seed rule is used" in w for w in warnings)


def test_fields_are_captured_as_before() -> None:
    """Lazy text fields, greedy numbers, optional parts tried first: the regular expressions' answers."""
    rule = naming_rule("run_{model}_{train}.sh")
    assert rule.parse("run_qwen2_5_7b_fsdp.sh") == {"model": "qwen2", "train": "5_7b_fsdp"}
    rule = naming_rule("{task}-{model}-{nodes}n{gpus_per_node}g[-{variant}].yaml")
    assert rule.parse("grpo-llama3.1-8b-2n8g-megatron.yaml") == {
        "task": "grpo",
        "model": "llama3.1-8b",
        "nodes": "2",
        "gpus_per_node": "8",
        "variant": "megatron",
        "gpus": "16",
    }
    assert rule.parse("grpo-llama3.1-8b-2n8g.yaml") == {
        "task": "grpo",
        "model": "llama3.1-8b",
        "nodes": "2",
        "gpus_per_node": "8",
        "gpus": "16",
    }
    assert naming_rule("{model}_{gpus}x[_{variant}].sh").parse("qwen_128x.sh") == {"model": "qwen", "gpus": "128"}
    assert naming_rule("{model}_{model}.sh").parse("a_b.sh") == {"model": "a"}  # the first one names it
    assert naming_rule("{model}/{train}.sh").parse("a_b.sh") is None
    assert naming_rule("run_{model}.sh").claims("run_x.sh") and not naming_rule("run_{model}.sh").claims("x.sh")


@pytest.mark.parametrize(
    "pattern",
    ["_".join(["{any}"] * 30) + ".sh", "[{any}_][{any}_][{any}_]{any}.sh", "{any}_" * 25 + "{gpus}.sh"],
)
def test_the_worst_pattern_on_the_worst_name_is_quick(pattern: str) -> None:
    rule = naming_rule(pattern)
    for name in ("a_" * 127 + "a", "_" * NAME_MAX, "a_" * 120 + "1.sx", "1_" * 127):
        start = time.process_time()
        rule.parse(name)
        rule.claims(name)
        assert time.process_time() - start < 1.0, name[:20]


def test_a_name_longer_than_any_file_system_allows_follows_no_rule() -> None:
    for preset in ("verl", "nemo-rl"):
        name = "run_" + "a-" * 40_000 + "1n8g-x.yaml"
        start = time.process_time()
        assert naming_rule(preset).parse(name) is None and not naming_rule(preset).claims(name)
        assert time.process_time() - start < 0.5
    assert "a file name has at most 255" in (naming_rule("verl").problem("run_" + "a" * 300 + "_fsdp.sh") or "")


def test_a_glob_is_matched_without_backtracking() -> None:
    """launch_files' globs (core.globs, which replaced script_glob's matcher): linear, whatever they hold."""
    assert compile_glob("examples/**/*.sh").matches("examples/a/b/x.sh")
    assert compile_glob("examples/**/*.sh").matches("examples/x.sh")
    assert not compile_glob("examples/**/*.sh").matches("examples/a/x.py")
    assert not compile_glob("*.sh").matches("a/b.sh")
    assert compile_glob("a?c/*").matches("abc/d") and not compile_glob("a?c/*").matches("a/c/d")
    for glob, path in (("*a" * 60 + "*b", "a" * 4000), ("**/" * 60 + "b", "a/" * 2000), ("*a*a*a*a*a*b", "a" * 4000)):
        start = time.process_time()
        assert not compile_glob(glob).matches(path)
        assert time.process_time() - start < 2.0, glob[:12]


def test_a_glob_longer_than_the_limit_is_a_configuration_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings(repo, launch_files=["examples/" + "*a" * 120])
    status, _out, err = cli(repo, capsys, "lint")
    assert status == 2 and "tool.rlresources.launch_files item 'examples/*a*a" in err
    assert f"must be a glob of 1 to {MAX_PATTERN} characters" in err


# -- the URL template fills plain fields only ------------------------------------------------

STYLED = [
    "https://example.org/{path:099999999}",
    "https://example.org/{path:^9999}",
    "https://example.org/{ref!r}/{path}",
    "https://example.org/{ref!s}/{path}",
    "https://example.org/{path:{ref}}",
    "https://example.org/{path:x^9}",
]


@pytest.mark.parametrize("template", STYLED)
def test_a_formatted_field_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, template: str
) -> None:
    assert "formats a field" in (url_template_problem(template) or "")
    settings(repo, script_url=template)
    status, out, err = cli(repo, capsys, "render", "7b")
    assert status == 2 and "tool.rlresources.script_url formats a field" in err and out == ""
    (repo / "pyproject.toml").unlink()
    sphinx_project(repo, f"rlresources_script_url = {template!r}\n")
    status, warnings = build(repo, tmp_path / "html", "-b", "html")
    assert status == 0 and any("formats a field" in w and "scripts are copied" in w for w in warnings)
    assert os.path.getsize(tmp_path / "html" / "index.html") < 200_000


@pytest.mark.parametrize("template", ["https://x.org/{path.real}", "https://x.org/{path[0]}", "https://x.org/{}"])
def test_a_field_with_an_attribute_index_or_no_name_is_refused(template: str) -> None:
    assert "only {path} and {ref} are filled" in (url_template_problem(template) or "")


def test_plain_fields_are_still_filled() -> None:
    assert url_template_problem("https://github.com/org/repo/blob/{ref}/{path}") is None
    assert url_template_problem("https://example.org/{{literal}}/{path}") is None


# -- absurd size labels ----------------------------------------------------------------------

HUGE = "9" * 400 + "B"


@pytest.mark.parametrize(
    ("wanted", "labels", "expected"),
    [
        (HUGE, ["7B", "70B"], None),
        ("9" * 400 + "x7B", ["7B"], None),
        ("5B", ["0B", "7B"], "7B"),
        ("0B", ["7B", "70B"], "70B"),  # no count to compare: by spelling
        ("7b", ["0B", HUGE], None),
        ("x" * 10_000, ["7B"], None),
        ("8B", ["7B", "70B"], "7B"),
    ],
)
def test_the_closest_size_hint_takes_any_label(wanted: str, labels: list[str], expected: str | None) -> None:
    assert closest_size(wanted, labels) == expected


def test_render_sync_and_the_directive_answer_an_absurd_size(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (repo / "data" / "0b.yaml").write_text("size: 0B\nentries: []\n", "utf-8")
    for size in (HUGE, "5b", "0b\x1b[2J"):
        status, _out, err = cli(repo, capsys, "render", size)
        assert status == 2 and "rlresources: error: unknown size" in err
        assert "\x1b" not in err
    readme = repo / "README.md"
    readme.write_text(f"<!-- rl-resource-table {HUGE} -->\n<!-- /rl-resource-table -->\n", "utf-8")
    status, out, err = cli(repo, capsys, "sync", "--check", "README.md")
    assert status == 1 and "README.md:1:24: error: unknown size" in out and "Traceback" not in err
    sphinx_project(
        repo, page=f".. rl-resource-table:: {HUGE}\n\n.. rl-resource-table:: 5b\n\n.. rl-resource-table:: 0b\n"
    )
    status, warnings = build(repo, tmp_path / "html", "-b", "html")
    assert status == 0 and sum("unknown size" in w for w in warnings) == 2, warnings
    assert not any("Exception" in w or "Traceback" in w for w in warnings)


# -- what git stores as a link ---------------------------------------------------------------


def test_a_pinned_script_that_git_stores_as_a_link_is_a_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, GOOD)
    git(root, "init", "-q")
    script = root / SCRIPT
    script.unlink()
    script.symlink_to("/etc/passwd")
    first = commit(root, "a link", "2025-06-25T12:00:00+00:00")
    script.unlink()
    script.write_text("python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8\n", "utf-8")
    commit(root, "the script", "2025-06-26T12:00:00+00:00")
    (root / "data" / "7b.yaml").write_text(
        GOOD.replace(f"script: {SCRIPT}", f"script: {SCRIPT}\n    script_ref: {first}")
    )
    status, out, _err = cli(root, capsys, "lint", "--data", "data", "--root", ".", "--scripts", "examples/tuning")
    assert status == 1
    assert (
        f"data/7b.yaml:12:13: error: script '{SCRIPT}' is a symbolic link at {first}: git stores where it points, "
        "not a script, so it is not read; pin the script's own path [rlresources.script_file]"
    ) in out.splitlines()
    assert "root:" not in out  # the link's target was never read as a script


# -- a special file reached through a link ---------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_a_fifo_behind_a_link_is_reported_under_the_data_files_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, GOOD)
    os.mkfifo(root / "pipe")
    (root / "data" / "13b.yaml").symlink_to(root / "pipe")
    os.mkfifo(root / "pipe2")
    (root / "examples" / "tuning" / "7b" / "other_grpo_8_h100_fsdp_vllm.sh").symlink_to(root / "pipe2")
    status, out, _err = cli(root, capsys, "lint", "--data", "data", "--root", ".", "--scripts", "examples/tuning")
    assert status == 1
    assert re.search(r"^data/13b\.yaml: error: the data file is a named pipe", out, re.M), out
    assert not re.search(r"^pipe2?[:]", out, re.M), out
