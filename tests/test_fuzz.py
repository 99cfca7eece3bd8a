"""Fuzzing: whatever a data file or a script holds, the answer is diagnostics, never a traceback.

Property-based tests (hypothesis) feed random YAML documents, random byte soups,
mutations of a valid data file and random script texts to the loader, the checks, the
script reader and ``rlresources lint``.  Each must either succeed or return located
diagnostics.

CI runs the ``ci`` profile of tests/conftest.py (200 derandomized examples per
property, more than 2,000 in all, within about three minutes).  A long run locally::

    RLRESOURCES_FUZZ=long .venv/bin/python -m pytest tests/test_fuzz.py -q --hypothesis-show-statistics

(or ``make fuzz``).  ``RLRESOURCES_FUZZ_EXAMPLES=N`` sets the number of examples per
test of the long profile (default 5,000).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import string
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.safe.text import visible
from sphinx_rlresources.scripts.reader import read_script

LONG = os.environ.get("RLRESOURCES_FUZZ") == "long"
"""The long run's profile (tests/conftest.py) is loaded: one test that builds a site takes more examples."""

CORPUS_ROOT = Path(__file__).parent / "corpus" / "_root"
SCRIPT = "examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh"
VALID = f"""\
# Verified RL training configurations for 7B models.
size: 7B
entries:
  - tag: MIN
    model: Qwen2-7B
    task: GRPO
    gpus: 8
    device: H100
    max_batch: 64
    train: fsdp
    infer: vllm
    infer_version: "0.8.2"
    script: {SCRIPT}
    contributor:
      name: Xiangyongan
      github: Xiangyongan
    model_id: Qwen/Qwen2-7B-Instruct
    tested: 2025-06-25
    notes: needs offload
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository reused by every example (hypothesis runs many examples per test)."""
    root = tmp_path_factory.mktemp("fuzz")
    (root / "data").mkdir()
    shutil.copytree(CORPUS_ROOT / "examples", root / "examples")
    return root


def check_load(root: Path, data: bytes, name: str = "7b.yaml") -> list[Diagnostic]:
    """Load ``data`` as the only data file; assert the result is well-formed, never raised."""
    for old in (root / "data").iterdir():
        old.unlink()
    (root / "data" / name).write_bytes(data)
    dataset = load_dataset(root / "data", root, LoadOptions(max_file_bytes=200_000))
    lines = data.count(b"\n") + data.count(b"\r") + 1
    for diag in dataset.diagnostics:
        assert isinstance(diag.subtype, Subtype)
        assert diag.message and "\n" not in diag.message
        assert len(diag.message) < 2_000  # never an expanded structure or a whole file
        assert 0 <= diag.line <= lines + 1, diag
        assert diag.column >= 0
        assert "Traceback" not in diag.message
    readable = [size for size in dataset.sizes.values() if size.readable]
    for size in readable:
        for entry in size.entries:  # a row that reached the table is fully typed
            assert isinstance(entry.gpus, int) and not isinstance(entry.gpus, bool)
            assert isinstance(entry.model, str) and isinstance(entry.contributor.name, str)
    return dataset.diagnostics


# -- strategies -------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["MIN", "RECOMMENDED", "7B", "0.10", "2025-06-25", "yes", "~", "8", SCRIPT, "../x.sh"]),
)
plain_data = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(
            st.one_of(
                st.sampled_from(["size", "entries", "tag", "gpus", "script", "contributor", "name", "url"]),
                st.text(max_size=10),
            ),
            children,
            max_size=6,
        ),
    ),
    max_leaves=40,
)

#: Pieces of YAML syntax, glued at random: anchors, aliases, tags, flow and block
#: collections, directives, block scalars, merge keys, tabs, quotes and comments.
YAML_PIECES = [
    "size", "entries", "gpus", "tag", "script", ": ", ":", "- ", "-", "\n", "\n  ", "\n    ", "\t", " ",
    "[", "]", "{", "}", ",", "&a ", "*a", "&b ", "*b", "<<: ", "!!str ", "!!int ", "!!python/object/apply:os.system ",
    "!custom ", "!!binary ", "!!set ", "? ", "|", ">", "'", '"', "#", "---\n", "...\n", "%YAML 1.1\n", "%TAG ! x\n",
    "7B", "8", "0.10", "010", "0x10", "1:30", "yes", "~", "2025-06-25", ".inf", "1e999", "\\", "\ufeff", "\x85",
    "é", "\u2028", "\x00", "\x07",
]  # fmt: skip
yaml_soup = st.lists(st.sampled_from(YAML_PIECES), max_size=60).map("".join)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """The valid file with a few random edits: characters, lines or bytes."""
    data = bytearray(VALID.encode())
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        size = len(data)
        kind = draw(st.sampled_from(["delete", "insert", "replace", "byte", "line-dup", "line-drop", "indent"]))
        at = draw(st.integers(min_value=0, max_value=max(size - 1, 0)))
        if kind == "delete":
            del data[at : at + draw(st.integers(min_value=1, max_value=20))]
        elif kind == "insert":
            piece = draw(st.one_of(st.sampled_from(YAML_PIECES), st.text(max_size=8)))
            data[at:at] = piece.encode("utf-8", "surrogatepass")
        elif kind == "replace" and size:
            data[at] = ord(draw(st.sampled_from(string.printable)))
        elif kind == "byte" and size:
            data[at] = draw(st.integers(min_value=0, max_value=255))
        else:
            lines = bytes(data).split(b"\n")
            index = draw(st.integers(min_value=0, max_value=len(lines) - 1))
            if kind == "line-dup":
                lines.insert(index, lines[index])
            elif kind == "line-drop":
                del lines[index]
            else:
                lines[index] = draw(st.sampled_from([b"\t", b" ", b"   "])) + lines[index]
            data = bytearray(b"\n".join(lines))
    return bytes(data)


@st.composite
def rows(draw: st.DrawFn) -> str:
    """Schema-shaped rows with hostile values, so the checks after the schema run too."""
    names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9.+-]{0,10}", fullmatch=True)
    script = draw(
        st.one_of(
            st.just(SCRIPT),
            st.from_regex(r"[a-z0-9_./~-]{1,40}\.sh", fullmatch=True),
            st.sampled_from(["/etc/passwd.sh", "../x.sh", "examples/../../x.sh", "C:/x.sh", "~/x.sh", "examples/.sh"]),
        )
    )
    row = {
        "tag": draw(st.sampled_from(["MIN", "RECOMMENDED"])),
        "model": draw(st.text(min_size=1, max_size=40).filter(lambda s: s.isprintable())),
        "task": draw(names),
        "gpus": draw(st.integers(min_value=1, max_value=65536)),
        "device": draw(names),
        "max_batch": draw(st.one_of(st.none(), st.integers(min_value=1, max_value=10_000_000))),
        "train": draw(names),
        "infer": draw(names),
        "script": script,
        "contributor": draw(st.text(min_size=1, max_size=20).filter(lambda s: s.isprintable())),
    }
    return yaml.safe_dump({"size": "7B", "entries": [row]}, allow_unicode=True)


#: Pieces of bash tuning scripts: assignments, expansions, arithmetic, quotes,
#: continuations and the overrides the cross-check reads.
SCRIPT_PIECES = [
    "python3 -m verl.trainer.main_ppo ", "trainer.n_gpus_per_node=", "trainer.nnodes=", "data.train_batch_size=",
    "actor_rollout_ref.rollout.name=", "actor_rollout_ref.model.path=", "actor_rollout_ref.model.lora_rank=",
    "algorithm.adv_estimator=", "--config-name=", "--config-name ", "export ", "N=", "M=", "$N", "${N}", "${M:-4}",
    "$((", "))", "$(", ")", "`", "8", "0", "-1", "999999999999999999999", "**", "*", "/", "%", "+", "-", "(", ")",
    "'", '"', "\\\n", "\n", " ", "#", ";", "&&", "|", "$@", "$1", "vllm", "sglang", "megatron", "fsdp", "grpo",
    "Qwen/Qwen2-7B-Instruct", "=", "$", "{", "}", "<<EOF\n", "EOF\n", "\t", "\x00", "é", "１", "٣", "ß",
]  # fmt: skip
script_soup = st.lists(st.sampled_from(SCRIPT_PIECES), max_size=80).map("".join)


# -- properties -------------------------------------------------------------------------


@given(value=plain_data, style=st.sampled_from([None, True, False]))
def test_random_yaml_documents(repo: Path, value: object, style: bool | None) -> None:
    text = yaml.safe_dump(value, default_flow_style=style, allow_unicode=True)
    check_load(repo, text.encode())


@given(text=yaml_soup)
def test_random_yaml_syntax(repo: Path, text: str) -> None:
    check_load(repo, text.encode("utf-8", "surrogatepass"))


@given(data=st.binary(max_size=300))
def test_random_bytes(repo: Path, data: bytes) -> None:
    check_load(repo, data)


@given(data=mutated())
def test_mutations_of_a_valid_file(repo: Path, data: bytes) -> None:
    check_load(repo, data)


@given(text=rows())
def test_schema_valid_rows_with_hostile_values(repo: Path, text: str) -> None:
    found = check_load(repo, text.encode())
    subtypes = {d.subtype for d in found}
    assert Subtype.YAML not in subtypes and Subtype.FILE not in subtypes  # safe_dump writes valid YAML


@given(text=script_soup)
def test_random_script_texts(repo: Path, text: str) -> None:
    settings_ = read_script(text)
    for problem in settings_.problems:
        assert problem.line >= 1 and problem.message
    # the same text as the script of a valid row: the cross-check answers with diagnostics
    (repo / SCRIPT).write_text(text, "utf-8", "surrogatepass")
    try:
        check_load(repo, VALID.encode())
    finally:
        shutil.copyfile(CORPUS_ROOT / SCRIPT, repo / SCRIPT)


@given(data=st.one_of(mutated(), yaml_soup.map(str.encode)))
def test_rlresources_lint_never_fails_to_run(repo: Path, data: bytes) -> None:
    check_load(repo, data)
    out, err = io.StringIO(), io.StringIO()
    with _cwd(repo), redirect_stdout(out), redirect_stderr(err):
        status = rlresources(["lint", "--data", "data", "--root", ".", "--scripts", "examples/tuning"])
    assert err.getvalue() == ""
    assert status in (0, 1)
    assert out.getvalue().splitlines()[-1].startswith("rlresources: ")


class _cwd:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.old = Path.cwd()

    def __enter__(self) -> None:
        self.old = Path.cwd()
        os.chdir(self.path)

    def __exit__(self, *_exc: object) -> None:
        os.chdir(self.old)


#: Characters that mean something to reST, Markdown, HTML or LaTeX, a few letters, and
#: the characters that change how text reads: line and paragraph separators, bidi
#: overrides and isolates, zero-width characters (the loader refuses them; an output that
#: is handed one shows its code point).
MARKUP = "*`_|\\<>[]()#-+.:=!~^${}%&'\" aZ09é\u2028\u2029\u0085\u202e\u2066\u200b\ufeff"
#: Whole constructs: links a parser finds on its own, roles, footnotes, list markers.
MARKUP_TOKENS = [
    "javascript:alert(1)", "https://e.x/a", "mailto:a", "a@b.cd", "www.e.com", "::", ":ref:`x`", ":x: y",
    "`x <https://e.x>`_", "[1]_", "|s|", ".. ", "* ", "1. ", "#. ", "- ", "> ", "**b**", "_t_", "<b>", "\\",
]  # fmt: skip
markup_text = (
    st.lists(st.one_of(st.sampled_from(list(MARKUP)), st.sampled_from(MARKUP_TOKENS)), min_size=1, max_size=15)
    .map("".join)
    .map(lambda s: re.sub(" +", " ", s).strip(" "))  # docutils folds runs of spaces, as a reader would
    .filter(bool)
)


@given(model=markup_text, name=markup_text, notes=markup_text)
def test_rendered_rest_shows_every_value_literally(model: str, name: str, notes: str) -> None:
    from docutils import nodes
    from docutils.core import publish_doctree

    from sphinx_rlresources.cli.render import Renderer, render_rst
    from sphinx_rlresources.core.model import Contributor, Entry, SourceRef

    entry = Entry(
        size="7B", tag="MIN", model=model, task="GRPO", gpus=8, device="H100", max_batch=None, train="fsdp",
        infer="vllm", script=SCRIPT, contributor=Contributor(name), source=SourceRef("7b.yaml", 1, 1), notes=notes,
    )  # fmt: skip
    text = render_rst([entry], ["model", "contributor", "notes"], Renderer("rst", None, "main"), "7B")
    doctree = publish_doctree(text, settings_overrides={"report_level": 5, "halt_level": 5})
    # INFO notes ("possible title overline") are docutils thinking aloud; anything above is a fault.
    assert all(m["level"] < 2 for m in doctree.findall(nodes.system_message)), text
    for message in list(doctree.findall(nodes.system_message)):
        message.parent.remove(message)
    (table,) = doctree.findall(nodes.table)
    body = next(table.findall(nodes.tbody))
    cells = [entry_.astext() for entry_ in body.findall(nodes.entry)]
    assert cells == [visible(model), visible(name), visible(notes)], text
    for cell in body.findall(nodes.entry):  # nothing became emphasis, a link, a list or a reference
        for node in cell.findall():
            assert isinstance(node, (nodes.entry, nodes.paragraph, nodes.Text)), (type(node).__name__, text)


@settings(max_examples=min(settings.default.max_examples, 300 if LONG else 10))
@given(text=rows())
def test_sphinx_draws_any_valid_row(repo: Path, text: str) -> None:
    """Schema-valid rows with hostile values through a real HTML build: drawn, never an internal error."""
    from html import unescape

    from sphinx.cmd.build import build_main

    (repo / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n', "utf-8"
    )
    (repo / "index.rst").write_text("Sizes\n=====\n\n.. rl-resource-table:: all\n   :filter:\n", "utf-8")
    check_load(repo, text.encode())
    log = repo / "warnings.txt"
    log.unlink(missing_ok=True)
    err = io.StringIO()
    with redirect_stderr(err):
        status = build_main(["-q", "-N", "-E", "-w", str(log), str(repo), str(repo / "_build")])
    assert status == 0, err.getvalue()
    assert "[rlresources.internal]" not in log.read_text("utf-8")
    html = (repo / "_build" / "index.html").read_text("utf-8")
    model = yaml.safe_load(text)["entries"][0]["model"]
    assert model in unescape(html)  # drawn, as the text it is


@given(model=markup_text, name=markup_text, notes=markup_text)
def test_rendered_markdown_shows_every_value_literally(model: str, name: str, notes: str) -> None:
    from markdown_it import MarkdownIt

    from sphinx_rlresources.cli.render import Renderer, render_markdown
    from sphinx_rlresources.core.model import Contributor, Entry, SourceRef

    entry = Entry(
        size="7B", tag="MIN", model=model, task="GRPO", gpus=8, device="H100", max_batch=None, train="fsdp",
        infer="vllm", script=SCRIPT, contributor=Contributor(name), source=SourceRef("7b.yaml", 1, 1), notes=notes,
    )  # fmt: skip
    text = render_markdown([entry], ["model", "contributor", "notes"], Renderer("markdown", None, "main"))
    # GitHub's flavour with linkify on: https://..., www.x.com and a@b.cd become links unless written as code
    tokens = MarkdownIt("gfm-like").parse(text)
    cells = [t for t in tokens if t.type == "inline"][3:]  # after the three header cells
    assert [t.type for t in tokens if t.type.endswith("_open")].count("tr_open") == 2, text
    for cell, value in zip(cells, [visible(model), visible(name), visible(notes)], strict=True):
        kinds = [child.type for child in cell.children or []]
        # plain text, or one code span: no emphasis, link, autolink, image or HTML
        assert set(kinds) <= {"text"} or kinds == ["code_inline"], (kinds, text)
        assert "".join(child.content for child in cell.children or []) == value, text


# -- every path opened is a regular file inside the root -----------------------------------

#: What stands where a data file or a row's script should be.
KINDS = ["file", "link-inside", "link-outside", "link-device", "fifo", "link-fifo", "folder", "missing"]


def _place(path: Path, kind: str, text: str, root: Path, outside: Path) -> None:
    """Put a ``kind`` at ``path``: the real thing, a link in or out, a pipe, a folder, or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    spare = f"{path.parent.name}-{path.name}.{kind}"
    if kind == "file":
        path.write_text(text, "utf-8")
    elif kind == "link-inside":
        (root / "store").mkdir(exist_ok=True)
        (root / "store" / spare).write_text(text, "utf-8")
        path.symlink_to(root / "store" / spare)
    elif kind == "link-outside":
        (outside / spare).write_text(text, "utf-8")
        path.symlink_to(outside / spare)
    elif kind == "link-device":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-fifo":
        (root / "store").mkdir(exist_ok=True)
        os.mkfifo(root / "store" / spare)
        path.symlink_to(root / "store" / spare)
    elif kind == "folder":
        path.mkdir()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
@given(
    data=st.lists(st.sampled_from(KINDS), min_size=1, max_size=4),
    scripts=st.lists(st.sampled_from(KINDS), min_size=1, max_size=4),
    folder=st.sampled_from(["folder", "link-inside", "link-outside"]),
)
def test_every_path_the_loader_opens_is_a_regular_file_inside_the_root(  # noqa: C901 - one property, every kind of path
    tmp_path_factory: pytest.TempPathFactory, data: list[str], scripts: list[str], folder: str
) -> None:
    import builtins
    import stat
    import sys
    import tempfile

    from sphinx_rlresources.core.paths import is_within
    from sphinx_rlresources.core.validation import schema

    schema()  # the packaged schema is read once, before the watch starts
    sandbox = Path(tempfile.mkdtemp(dir=tmp_path_factory.getbasetemp()))
    root, outside = sandbox / "repo", sandbox / "outside"
    outside.mkdir()
    root.mkdir()
    if folder == "folder":
        (root / "data").mkdir()
    elif folder == "link-inside":
        (root / "real-data").mkdir()
        (root / "data").symlink_to(root / "real-data", target_is_directory=True)
    else:
        (outside / "data").mkdir()
        (root / "data").symlink_to(outside / "data", target_is_directory=True)
    sizes = ["7B", "14B", "32B", "70B"]
    for index, kind in enumerate(data):
        size = sizes[index]
        rows = [
            VALID.split("entries:\n", 1)[1].replace(SCRIPT, f"examples/{size.lower()}/s{n}.sh")
            for n, _k in enumerate(scripts)
        ]
        _place(root / "data" / f"{size.lower()}.yaml", kind, f"size: {size}\nentries:\n" + "".join(rows), root, outside)
        for n, script_kind in enumerate(scripts):
            _place(root / "examples" / size.lower() / f"s{n}.sh", script_kind, "#!/bin/sh\n", root, outside)

    opened: list[str] = []
    real_os_open, real_open = os.open, builtins.open

    def os_open(path: object, *args: object, **kwargs: object) -> int:
        opened.append(os.fspath(path))  # type: ignore[arg-type]
        return real_os_open(path, *args, **kwargs)  # type: ignore[arg-type]

    def open_(path: object, *args: object, **kwargs: object) -> object:
        if isinstance(path, (str, os.PathLike)):
            opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    os.open, builtins.open = os_open, open_  # type: ignore[assignment]
    try:
        dataset = load_dataset(root / "data", root, LoadOptions())
    finally:
        os.open, builtins.open = real_os_open, real_open  # type: ignore[assignment]
    assert all(isinstance(d.subtype, Subtype) for d in dataset.diagnostics)
    libraries = (sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parent.parent))
    real_root = root.resolve()
    for path in opened:
        real = Path(os.path.realpath(path))
        if str(real).startswith(libraries):
            continue  # Python and the package itself (lazy imports), not the data
        assert is_within(real, real_root), path
        assert stat.S_ISREG(os.stat(real).st_mode), path
    if folder == "link-outside":
        assert dataset.sizes == {}
