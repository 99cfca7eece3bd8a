"""Hostile data: nothing constructed, nothing expanded, nothing outside the root, no markup.

Data files and scripts arrive in pull requests from strangers and CI builds them, so
each test here plays the attacker against the loader, ``rlresources lint`` and the
Sphinx builders the project supports.
"""

from __future__ import annotations

import re
import shutil
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import unbroken
from helpers import HOSTILE_ROOT, ROW, SCRIPT, lines, make_repo, sphinx_project
from helpers import sphinx_build as build

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.loader import LoadOptions
from sphinx_rlresources.core.urls import safe_url
from sphinx_rlresources.safe import yamlsafe


def lint(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *flags: str
) -> tuple[int, list[str]]:
    monkeypatch.chdir(root)
    status = rlresources(["lint", "--data", "data", "--root", ".", "--scripts", "examples/tuning", *flags])
    out, err = capsys.readouterr()
    assert err == ""
    return status, out.splitlines()[:-1]


# -- objects are never constructed -------------------------------------------------------

OBJECT_TAGS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/apply:subprocess.call [['touch', '{marker}']]",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/name:os.system",
    "!!python/module:os",
    "!!python/object:argparse.Namespace {{a: 1}}",
]


@pytest.mark.parametrize("tag", OBJECT_TAGS)
def test_object_tags_are_refused_and_never_constructed(
    tag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "pwned"
    value = tag.format(marker=marker)
    root = make_repo(
        tmp_path, "size: 7B\nentries:\n" + ROW.replace("contributor: Xiangyongan", f"contributor: {value}")
    )
    shown = value.split(" ")[0]
    want = [
        f"data/7b.yaml:13:18: error: the YAML tag {shown} is not allowed in a data file; only plain text, numbers, "
        "lists and mappings are read (remove the tag) [rlresources.yaml]"
    ]
    assert lines(root) == want
    assert lint(root, monkeypatch, capsys) == (1, want)
    assert not marker.exists()


def test_a_tag_on_a_key_or_a_whole_document_is_refused_too(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    root = make_repo(tmp_path, f"!!python/object/apply:os.system ['touch {marker}']\n")
    assert lines(root) == [
        "data/7b.yaml:1:1: error: the YAML tag !!python/object/apply:os.system is not allowed in a data file; only "
        "plain text, numbers, lists and mappings are read (remove the tag) [rlresources.yaml]"
    ]
    (root / "data" / "7b.yaml").write_text(f"? !!python/object/apply:os.system ['touch {marker}']\n: 1\n", "utf-8")
    assert lines(root) == ["data/7b.yaml:1:3: error: a mapping key must be a plain word, like gpus [rlresources.yaml]"]
    assert not marker.exists()


# -- alias bombs: bounded work, bounded memory, short messages -----------------------------


def billion_laughs(levels: int = 9) -> str:
    """Each level is a list of ten aliases of the previous one: 10**levels values in all."""
    out = ["size: 7B", 'lol0: &lol0 "lol"']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*lol{level - 1}"] * 10)
        out.append(f"lol{level}: &lol{level} [{refs}]")
    out.append("entries: []")
    return "\n".join(out) + "\n"


def quadratic_blowup(copies: int = 5_000) -> str:
    """One long string, aliased thousands of times: few values, gigabytes of text."""
    big = "x" * 500_000
    refs = ", ".join(["*big"] * copies)
    return f"size: 7B\nbig: &big {big}\nentries:\n  - {{notes: [{refs}]}}\n"


def measure(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], int, int, float]:
    """(diagnostics, values built, peak bytes, seconds) of one load."""
    calls = 0
    build = yamlsafe._Builder.build

    def counting(self: yamlsafe._Builder, *args: object) -> object:
        nonlocal calls
        calls += 1
        return build(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(yamlsafe._Builder, "build", counting)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        found = lines(root, LoadOptions(max_file_bytes=4_000_000))
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    print(f"{len(found)} diagnostics, {calls} values built, peak {peak / 1e6:.1f} MB, {seconds:.3f} s")
    return found, calls, peak, seconds


BOMB = (
    "error: the document expands to far more values or text than it spells out (anchors and aliases repeated "
    "inside each other); write the values out instead of using aliases [rlresources.yaml]"
)


def test_billion_laughs_is_rejected_with_bounded_work_and_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = billion_laughs()
    root = make_repo(tmp_path, text)
    found, calls, peak, seconds = measure(root, monkeypatch)
    assert found == [f"data/7b.yaml:2:7: {BOMB}"]  # at the value repeated beyond the budget
    # The document spells out about a hundred values; it expands to 10**9.  The work done
    # is bounded by the budget, not by the expansion, and so is the memory.
    assert calls <= 200 + yamlsafe.ALIAS_EXPANSION_BUDGET + 1
    assert peak < 20_000_000
    assert seconds < 30  # a ceiling for a loaded CI machine; the real figure is printed above


def test_one_string_aliased_thousands_of_times_is_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = quadratic_blowup()
    root = make_repo(tmp_path, text)
    found, calls, peak, seconds = measure(root, monkeypatch)
    assert [line.split(": error: ")[1] for line in found] == [BOMB.removeprefix("error: ")]
    # 5,000 aliases are within the value budget, so without the text budget the schema's
    # patterns would scan 2.5 GB of text; with it, the load stops after a few aliases.
    assert calls < 20
    assert peak < 20_000_000
    assert seconds < 30


def test_aliases_within_the_budget_are_validated_without_printing_the_expansion(tmp_path: Path) -> None:
    row = ROW.replace("model: Qwen2-7B", "model: *many").replace("contributor: Xiangyongan", "contributor: *many")
    items = ", ".join(f"item{i}" for i in range(2_000))
    root = make_repo(tmp_path, f"size: 7B\nmany: &many [{items}]\nentries:\n{row}")
    # Reported at the key that used the alias (the anchor may be anywhere), never expanded.
    assert lines(root) == [
        "data/7b.yaml:2:1: error: (document): unknown field 'many'. The fields are: entries, size [rlresources.schema]",
        "data/7b.yaml:5:5: error: entries[0].model: is a list, but text is expected; for example model: Qwen2.5-72B "
        "[rlresources.schema]",
        "data/7b.yaml:14:5: error: entries[0].contributor: is a list; give a name, or a mapping with name and "
        "optionally github, url and email [rlresources.schema]",
    ]


def test_nesting_that_would_crash_the_yaml_composer_is_refused(tmp_path: Path) -> None:
    # libyaml's composer recurses in C: ~30,000 nested brackets crash the interpreter.
    root = make_repo(tmp_path, "size: 7B\nentries: " + "[" * 200_000 + "\n")
    assert lines(root) == ["data/7b.yaml:2:73: error: values are nested more than 64 levels deep [rlresources.yaml]"]


# -- size limits ---------------------------------------------------------------------------


def test_a_file_over_the_size_limit_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "size: 7B\nentries:\n" + ROW
    root = make_repo(tmp_path, text)
    size = len(text.encode())
    want = [
        f"data/7b.yaml: error: the data file is {size} bytes, more than the limit of 100; split it or raise "
        "rlresources_max_file_size (--max-file-size) [rlresources.file]"
    ]
    assert lines(root, LoadOptions(max_file_bytes=100)) == want
    assert lines(root) == []  # the default (1 MiB) reads it
    assert lint(root, monkeypatch, capsys, "--max-file-size", "100") == (1, want)
    status, warnings = build(sphinx_project(root, "rlresources_max_file_size = 100\n"), tmp_path / "html", "-b", "html")
    assert status == 0
    assert warnings == [
        f"<srcdir>/data/7b.yaml:1: WARNING: the data file is {size} bytes, more than the limit of 100; split it or "
        "raise rlresources_max_file_size (--max-file-size) [rlresources.file]",
        "<srcdir>/index.rst:4: WARNING: the data for size '7b' could not be read (<srcdir>/data/7b.yaml); its rows "
        "are not drawn: fix the problems reported for that file [rlresources.data_unreadable]",
    ]


# -- paths: nothing outside the root is read or copied ---------------------------------------

SECRET = "TOP-SECRET-OUTSIDE-THE-ROOT"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the root, holding a script-looking file nobody may publish."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "qwen2-7b_grpo_8_h100_fsdp_vllm.sh").write_text(f"#!/bin/sh\necho {SECRET}\n", "utf-8")
    return folder


def _published(out: Path) -> str:
    return "".join(p.read_text("utf-8", "replace") for p in out.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            "/tmp/outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh",
            "script '/tmp/outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh' is an absolute path; give it relative to the "
            "repository root, e.g. examples/tuning/70b/NAME.sh",
        ),
        (
            "~/qwen2-7b_grpo_8_h100_fsdp_vllm.sh",
            "script '~/qwen2-7b_grpo_8_h100_fsdp_vllm.sh' is an absolute path; give it relative to the repository "
            "root, e.g. examples/tuning/70b/NAME.sh",
        ),
        (
            "C:/outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh",
            "script 'C:/outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh' is an absolute path; give it relative to the "
            "repository root, e.g. examples/tuning/70b/NAME.sh",
        ),
        (
            "../outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh",
            "script '../outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh' uses '..'; give the path from the repository "
            "root without '..'",
        ),
        (
            "examples/../../outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh",
            "script 'examples/../../outside/qwen2-7b_grpo_8_h100_fsdp_vllm.sh' uses '..'; give the path from the "
            "repository root without '..'",
        ),
        (
            "examples/link/qwen2-7b_grpo_8_h100_fsdp_vllm.sh",
            "script 'examples/link/qwen2-7b_grpo_8_h100_fsdp_vllm.sh' leads through a symbolic link to a place "
            "outside the repository root; link a file that lives inside the repository",
        ),
        (
            "examples/evil.sh",
            "script 'examples/evil.sh' leads through a symbolic link to a place outside the repository root; link "
            "a file that lives inside the repository",
        ),
    ],
)
def test_script_paths_leaving_the_root_are_errors_and_nothing_is_copied(
    script: str, message: str, tmp_path: Path, outside: Path
) -> None:
    root = make_repo(tmp_path, "size: 7B\nentries:\n" + ROW.replace(SCRIPT, script))
    shutil.rmtree(root / "examples" / "tuning")  # the only script left is outside
    (root / "examples" / "link").symlink_to(outside, target_is_directory=True)
    (root / "examples" / "evil.sh").symlink_to(outside / "qwen2-7b_grpo_8_h100_fsdp_vllm.sh")
    found = [line for line in lines(root) if "[rlresources.naming]" not in line]
    assert found == [f"data/7b.yaml:12:13: error: {message} [rlresources.script_path]"]

    out = tmp_path / "html"
    status, warnings = build(sphinx_project(root), out, "-b", "html")
    assert status == 0
    assert f"<srcdir>/data/7b.yaml:12:13: WARNING: {message} [rlresources.script_path]" in warnings
    assert not (out / "_downloads").exists()
    assert SECRET not in _published(out)
    assert Path(script).name in unbroken((out / "index.html").read_text("utf-8"))  # shown as plain text, unlinked


def test_a_data_file_that_is_a_symlink_out_of_the_root_is_not_read(tmp_path: Path, outside: Path) -> None:
    (outside / "secret.yaml").write_text(f"size: 7B\nentries: []\n# {SECRET}\n", "utf-8")
    root = make_repo(tmp_path, "size: 7B\nentries: []\n")
    (root / "data" / "7b.yaml").unlink()
    (root / "data" / "7b.yaml").symlink_to(outside / "secret.yaml")
    assert lines(root) == [
        "data/7b.yaml: error: the data file is a symbolic link to a place outside the repository root; replace it "
        "with the file itself [rlresources.file]"
    ]


# -- links: only http, https and mailto ----------------------------------------------------


def test_only_http_https_and_mailto_targets_are_emitted() -> None:
    assert safe_url("https://example.org/x") == "https://example.org/x"
    assert safe_url("mailto:a@example.org") == "mailto:a@example.org"
    for bad in (
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,x",
        "vbscript:x",
        "//evil",
        "https://a b",
        "https://a/\\fB",  # roff in a man page
    ):
        assert safe_url(bad) is None


def test_unsafe_link_settings_in_conf_py_are_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path, "size: 7B\nentries:\n" + ROW)
    conf = 'rlresources_script_url = "javascript:alert(\'{path}\')"\nrlresources_contributing = "javascript:alert(1)"\n'
    out = tmp_path / "html"
    status, warnings = build(sphinx_project(root, conf), out, "-b", "html")
    assert status == 0
    assert warnings == [
        "WARNING: rlresources_script_url = \"javascript:alert('{path}')\" must start with https:// or http://; "
        "scripts are copied into the build instead [rlresources.config]",
        "WARNING: rlresources_contributing = 'javascript:alert(1)' must be a document name or an http(s) URL; "
        "ignored [rlresources.config]",
    ]
    assert "javascript:" not in (out / "index.html").read_text("utf-8")


# -- markup: no field's text becomes markup, in any builder ---------------------------------

HTML_BUILDERS = {"html": "index.html", "dirhtml": "index.html", "singlehtml": "index.html", "epub": "index.xhtml"}
BUILDERS = [*HTML_BUILDERS, "latex", "text", "man", "gettext"]


@pytest.fixture(scope="module")
def hostile_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every supported builder over the root whose data is all markup, with -W."""
    base = tmp_path_factory.mktemp("hostile")
    src = base / "src"
    shutil.copytree(HOSTILE_ROOT, src)
    outs = {}
    for builder in BUILDERS:
        status, warnings = build(src, base / builder, "-W", "-b", builder)
        assert (status, warnings) == (0, []), builder
        outs[builder] = base / builder
    return outs


def _hrefs(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]*)"', html)


@pytest.mark.parametrize("builder", list(HTML_BUILDERS))
def test_html_builders_escape_every_field(builder: str, hostile_builds: dict[str, Path]) -> None:
    html = unbroken((hostile_builds[builder] / HTML_BUILDERS[builder]).read_text("utf-8"))
    table = html[html.index("<table") : html.index("</table>")]
    for raw in ("<script>", "<b>bold", "<img src=x", "<strong>", "<em>", '"https://evil.example', ">index<"):
        assert raw not in table, raw
    for shown in (
        "&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt; **strong** `lit` :ref:`index` "
        "`x &lt;https://evil.example/rst&gt;`_ |sub|",
        r"\textbf{x}\input{/etc/passwd} { } % &amp; _ # $ ~ ^ \\ \end{document}",
        "T} .TH EVIL 1 \\fBroff\\fR [md](https://evil.example/md) ![img](https://evil.example/i.png) "
        "&lt;img src=x onerror=alert(1)&gt; &amp;amp; &amp;lt;b&amp;gt;",
    ):
        assert shown in table
    for raw in ("<script>alert", "<img src=x", "<b>bold"):  # nor anywhere else: filter, chart, coverage
        assert raw not in html, raw
    for target in _hrefs(table):
        assert target.startswith(("https://", "http://", "mailto:", "_downloads/", "../_downloads/")), target


def test_latex_escapes_every_special(hostile_builds: dict[str, Path]) -> None:
    tex = (hostile_builds["latex"] / "hostile.tex").read_text("utf-8")
    assert (
        r"\textbackslash{}textbf\{x\}\textbackslash{}input\{/etc/passwd\} \{ \} \% \& \_ \# \$ \textasciitilde{} "
        r"\textasciicircum{} \textbackslash{}\textbackslash{} \textbackslash{}end\{document\}" in tex
    )
    assert r"\textless{}script\textgreater{}alert(1)" in tex
    assert r"\input{/etc/passwd}" not in tex
    assert tex.count(r"\end{document}") == 1  # only Sphinx's own


def test_text_shows_the_fields_verbatim(hostile_builds: dict[str, Path]) -> None:
    text = (hostile_builds["text"] / "index.txt").read_text("utf-8")
    for verbatim in (
        "<script>alert(1)</script><b>",
        "**strong** `lit`",
        ":ref:`index`",
        r"\textbf{x}\input{/etc/passwd",
    ):
        assert verbatim in text


def test_man_escapes_roff_requests_and_tbl_blocks(hostile_builds: dict[str, Path]) -> None:
    man = (hostile_builds["man"] / "hostile.7").read_text("utf-8")
    assert r"\&T} .TH EVIL 1 \efBroff\efR" in man  # neither a request, nor the end of the cell
    assert r"\etextbf{x}\einput{/etc/passwd}" in man
    assert not any(line.startswith((".TH EVIL", "T} .TH")) for line in man.splitlines())


def test_gettext_does_not_offer_data_for_translation(hostile_builds: dict[str, Path]) -> None:
    pot = (hostile_builds["gettext"] / "index.pot").read_text("utf-8")
    assert "Every free-text field" in pot  # the page's own prose is extracted
    for data in ("alert(1)", "evil.example", "textbf", "Xiangyongan", "GRPO"):
        assert data not in pot


# -- one diagnostic, one line -------------------------------------------------------------


def test_line_breaks_in_file_names_and_keys_cannot_forge_diagnostics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    forged = "7b.yaml:1:1: error: forged [rlresources.yaml]"
    root = make_repo(tmp_path, f'size: 7B\nentries: []\n"\\n{forged}": 1\n', name=f"x\n{forged}.yaml")
    status, found = lint(root, monkeypatch, capsys)
    assert status == 1
    # One finding, one line: the line breaks in the file name and the key are shown as \\n.
    assert found == [
        "data/x\\n7b.yaml:1:1: error: forged [rlresources.yaml].yaml:3:1: error: (document): unknown field "
        "'\\n7b.yaml:1:1: error: forged [rlresources.yaml]'. The fields are: entries, size [rlresources.schema]"
    ]
