"""Parallel builds write the same pages as serial ones, and clean builds repeat exactly.

The data is loaded once in the main process before Sphinx forks its readers, and the
pages record what they draw in the environment that is merged back, so ``-j 2`` must
write byte for byte what ``-j 1`` writes.
"""

from __future__ import annotations

import filecmp
import io
import json
import pickle
import shutil
from pathlib import Path
from typing import Any

from conftest import TESTS, warning_lines
from helpers import built

from sphinx_rlresources.sphinxext.store import store_of


def build(make_app: Any, srcdir: Path, jobs: int) -> tuple[Path, int]:
    """A clean build of a fresh copy; its output folder and how many reader processes merged."""
    app, merges = build_app(make_app, srcdir, jobs)
    return Path(app.outdir), merges


def build_app(make_app: Any, srcdir: Path, jobs: int) -> tuple[Any, int]:
    """A clean build of a fresh copy; the application and how many reader processes merged."""
    shutil.copytree(TESTS / "roots" / "test-incremental", srcdir)
    merges: list[str] = []

    def listen(app: Any) -> None:
        app.connect("env-merge-info", lambda _app, _env, docnames, _other: merges.extend(docnames))

    app = built(make_app, srcdir, prepare=listen, parallel=jobs, freshenv=True)
    assert warning_lines(app) == []
    return app, len(merges)


def _content(path: Path) -> bytes:
    """A file's bytes; the search index as sorted JSON, since Sphinx 7.2 writes its
    ``alltitles`` in the order the reader processes merged (later versions sort it)."""
    data = path.read_bytes()
    if path.name == "searchindex.js":
        text = data.decode()
        index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
        return json.dumps(index, sort_keys=True).encode()
    return data


def written(outdir: Path) -> dict[str, bytes]:
    """Every file the build wrote, doctrees (a cache, not output) aside."""
    return {
        p.relative_to(outdir).as_posix(): _content(p)
        for p in sorted(outdir.rglob("*"))
        if p.is_file() and ".doctrees" not in p.relative_to(outdir).parts
    }


def test_two_jobs_write_the_same_pages_as_one(make_app: Any, tmp_path: Path) -> None:
    serial, serial_merges = build(make_app, tmp_path / "serial", 1)
    parallel, parallel_merges = build(make_app, tmp_path / "parallel", 2)
    assert serial_merges == 0
    assert parallel_merges > 0, "the pages were not read in parallel"
    one, two = written(serial), written(parallel)
    assert sorted(one) == sorted(two)
    assert [name for name in one if one[name] != two[name]] == []
    assert any(name.startswith("_downloads/") for name in one)  # the scripts are copied too
    assert "qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh" in one["all.html"].decode()


def test_two_clean_builds_write_identical_pages(make_app: Any, tmp_path: Path) -> None:
    first, _ = build(make_app, tmp_path / "first", 1)
    second, _ = build(make_app, tmp_path / "second", 1)
    comparison = filecmp.dircmp(first, second, ignore=[".doctrees"])
    assert written(first) == written(second), comparison.diff_files


class OursRefused(pickle.Unpickler):
    """Loads a pickle, refusing every class of this package: what the domain keeps must be plain data.

    Only the domain's data is checked this way: Sphinx 7.2 pickles its cache of written
    doctrees with the environment, and those hold this package's node classes.
    """

    def find_class(self, module: str, name: str) -> Any:
        assert not module.startswith("sphinx_rlresources"), f"{module}.{name} is pickled with the environment"
        return super().find_class(module, name)


def test_two_jobs_remember_what_each_page_draws_as_one(make_app: Any, tmp_path: Path) -> None:
    # The readers' notes of the sizes each page draws are merged back into the environment,
    # and the pickled environment holds them as plain data (the loaded data set is not kept).
    serial, _ = build_app(make_app, tmp_path / "serial", 1)
    parallel, merges = build_app(make_app, tmp_path / "parallel", 2)
    assert merges > 0
    uses = store_of(serial.env).uses
    assert uses["size-70b"] == {"70b"}
    assert uses["all"] == {"*"}
    assert "intro" not in uses
    assert store_of(parallel.env).uses == uses
    for app in (serial, parallel):
        env = pickle.loads((Path(app.doctreedir) / "environment.pickle").read_bytes())
        kept = OursRefused(io.BytesIO(pickle.dumps(env.domaindata["rlresources"]))).load()
        assert kept["uses"] == uses
        assert not hasattr(env, "rlresources")
