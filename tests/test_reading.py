"""What readers notice beyond the layout: sizes in parameter order, markers said once, an honest legend."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, unbroken
from sphinx.cmd.build import build_main

from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.model import Contributor, Entry, SourceRef
from sphinx_rlresources.safe.sizes import billions_in_name, heading_size, parameters, size_order, size_word
from sphinx_rlresources.sphinxext.export import dataset_object
from sphinx_rlresources.sphinxext.svgchart import render_svg


def test_sizes_go_by_parameter_count() -> None:
    ordered = ["0.5B", "1.5B", "3B", "7B", "14B", "32B", "70B", "405B", "671B"]
    shuffled = ["405B", "7B", "671B", "0.5B", "32B", "3B", "70B", "1.5B", "14B"]
    assert sorted(shuffled, key=size_order) == ordered
    assert sorted(["14B", "1.5B", "0.5B", "32B", "3B", "70B", "7B"], key=size_order) == [
        "0.5B", "1.5B", "3B", "7B", "14B", "32B", "70B",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("label", "between"),
    [
        ("1.8B", ("1.5B", "3B")),
        ("8x7B", ("32B", "70B")),  # eight experts of 7B: 56B in all
        ("235B-A22B", ("70B", "405B")),  # by its total, not its active part
        ("500M", ("0.1B", "0.6B")),
    ],
)
def test_odd_labels_are_placed_sensibly(label: str, between: tuple[str, str]) -> None:
    low, high = between
    assert size_order(low) < size_order(label) < size_order(high)


@pytest.mark.parametrize("label", ["", "large", "x7B", "7B-", "B", "1e9", "8x", "235B-A"])
def test_a_label_that_is_no_size_goes_after_every_size(label: str) -> None:
    assert size_order(label)[0] == 1  # the "not a size" group
    assert size_order(label) > size_order("671B") > size_order("0.5B")
    assert size_order(label) > size_order("7" * 400 + "B")  # after even the largest size


@pytest.mark.parametrize(
    ("text", "heading", "word", "in_name"),
    [
        ("7B", "7B", "7B", ["7b"]),
        ("0.5b", "0.5B", "0.5B", ["0.5b"]),
        ("Qwen2.5-7B models", "7B", None, ["7b"]),
        ("7 b", "7B", None, []),
        ("500m", "500M", "500M", []),
        ("8x7B", None, None, ["7b"]),  # a heading's 8x7B is no plain size; the name still says 7b
        ("7B and 14B", None, None, ["7b", "14b"]),  # a heading with two sizes names none
        ("llama7b", None, None, ["7b"]),
        ("v1.5", None, None, []),
    ],
)
def test_a_size_is_found_in_text_by_one_module(
    text: str, heading: str | None, word: str | None, in_name: list[str]
) -> None:
    """Headings (import), whole words (folders, name parts) and model names each read sizes their own way."""
    assert heading_size(text) == heading
    assert size_word(text) == word
    assert billions_in_name(text) == in_name


def test_a_label_counts_the_parameters_it_orders_by() -> None:
    assert parameters("7B") == 7e9 and parameters("8x7B") == 56e9 and parameters("235B-A22B") == 235e9
    assert parameters("large") is None and parameters("7B-") is None
    assert size_order("70B") == (0, parameters("70B"), "70b")


def test_other_digits_read_as_the_size_they_write() -> None:
    """``\\d`` and ``float`` accept every script's digits: Arabic-Indic ``٣B`` is 3B, between 1.5B and 7B."""
    assert size_order("1.5B") < size_order("٣B") < size_order("7B")
    assert sorted(["7B", "٣B", "1.5B"], key=size_order) == ["1.5B", "٣B", "7B"]


def test_a_size_too_large_for_a_float_goes_after_every_other_size_and_never_crashes() -> None:
    huge = "7" * 400 + "B"  # float("7" * 400) is infinity
    assert size_order(huge)[0] == 0
    assert size_order(huge) > size_order("671B") > size_order("235B-A22B")


def test_the_json_file_lists_sizes_by_parameter_count() -> None:
    data = dataset_object(load_dataset(REPO / "data", REPO))
    sizes = [size["size"] for size in data["sizes"]]
    assert sizes == sorted(sizes, key=size_order) and sizes[0] == "0.5B" and sizes[-1] == "671B"
    rows = [row["size"] for row in data["rows"]]
    assert rows == sorted(rows, key=size_order)


def _entry(tag: str) -> Entry:
    return Entry(
        size="7B", tag=tag, model="Qwen2-7B", task="GRPO", gpus=8, device="H100", max_batch=None, train="fsdp",
        infer="vllm", script="x.sh", contributor=Contributor("x"), source=SourceRef("data/7b.yaml", 1, 1),
    )  # fmt: skip


def test_the_legend_shows_only_the_tags_drawn() -> None:
    only_min = render_svg(["7B"], [_entry("MIN")])
    assert ">MIN</text>" in only_min and "RECOMMENDED</text>" not in only_min
    both = render_svg(["7B"], [_entry("MIN"), _entry("RECOMMENDED")])
    assert ">MIN</text>" in both and ">RECOMMENDED</text>" in both


def _site(tmp_path: Path, conf: str, page: str) -> Path:
    root = tmp_path / "site"
    shutil.copytree(REPO / "data", root / "data")
    shutil.copytree(REPO / "examples", root / "examples")
    (root / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n' + conf, "utf-8"
    )
    (root / "index.rst").write_text("T\n=\n\n" + page, "utf-8")
    return root


def _html(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")  # 2026-09-21: every row is over a year old
    out = tmp_path / "out"
    assert build_main(["-q", "-E", str(root), str(out)]) == 0
    return unbroken((out / "index.html").read_text("utf-8"))


def test_a_marker_every_row_shares_is_said_once_above_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = ".. rl-resource-table:: 70b\n\nAnd another view:\n\n.. rl-resource-table:: 7b\n   :markers: no\n"
    html = _html(_site(tmp_path, "rlresources_max_age_days = 365\n", page), tmp_path, monkeypatch)
    said = 'All rows were last tested on <span class="rlresources-date">2025-06-25</span>, more than a year ago.'
    assert html.count(said) == 1
    assert html.count('class="rlresources-marker rlresources-marker-outdated"') == 1  # in the sentence only
    assert "rlresources-shared-markers" in html
    assert "on this page" not in html  # the unmarked table's rows are not vouched for


def test_a_marker_every_row_of_the_page_shares_is_said_once_for_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The seed page's case: several tables, one of a single row, every row tested on one day.
    page = "".join(f"{size}\n---\n\n.. rl-resource-table:: {size}\n\n" for size in ("3b", "7b", "70b"))
    html = _html(_site(tmp_path, "rlresources_max_age_days = 365\n", page), tmp_path, monkeypatch)
    assert html.count('class="rlresources-marker rlresources-marker-outdated"') == 1  # not on the one-row table
    assert html.count('<p class="rlresources-shared-markers">') == 1
    said = html.index("Every configuration on this page was last tested on")
    assert said < html.index("<h2")  # in the page's opening, not under the first size's heading
    assert "All rows were" not in html


def test_an_empty_max_batch_says_it_was_not_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    html = _html(
        _site(tmp_path, "", ".. rl-resource-table:: 70b\n   :columns: model, maxbatch\n"), tmp_path, monkeypatch
    )
    # two of 70B's three rows give no max_batch: not "unlimited", not zero, but not measured
    assert html.count('<span class="rlresources-not-measured">not measured</span>') == 2
    assert "<td><p>176</p></td>" in html


def test_only_the_rows_that_differ_are_marked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _site(tmp_path, "rlresources_max_age_days = 365\n", ".. rl-resource-table:: 70b\n")
    data = root / "data" / "70b.yaml"
    text = data.read_text("utf-8")
    data.write_text(text.replace("tested: 2025-06-25", "tested: 2026-09-01", 1), "utf-8")  # one fresh row
    html = _html(root, tmp_path, monkeypatch)
    assert "All rows were" not in html
    assert html.count('class="rlresources-marker rlresources-marker-outdated"') == 2  # the two old rows


def test_a_table_of_one_row_keeps_its_marker_on_the_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    html = _html(
        _site(tmp_path, "rlresources_max_age_days = 365\n", ".. rl-resource-table:: 3b\n"), tmp_path, monkeypatch
    )
    assert "All rows were" not in html
    assert html.count('class="rlresources-marker rlresources-marker-outdated"') == 1


def test_every_body_cell_names_its_column_for_narrow_screens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _site(tmp_path, "", ".. rl-resource-table:: 7b\n")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    out = tmp_path / "out"
    assert build_main(["-q", "-E", str(root), str(out)]) == 0
    raw = (out / "index.html").read_text("utf-8")
    for label in ("Tag", "Model", "Task", "Resource", "MaxBatch", "Train", "Infer", "Link", "Contributor"):
        assert raw.count(f'<td data-label="{label}"') == 2, label


def test_break_hints_keep_epub_pages_well_formed_xml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import defusedxml.ElementTree

    root = _site(tmp_path, "", ".. rl-resource-table:: all\n\n.. rl-resource-coverage::\n")  # its headers hyphenate
    data = root / "data" / "7b.yaml"
    data.write_text(data.read_text("utf-8").replace("tag: MIN", "tag: RECOMMENDED", 1), "utf-8")
    out = tmp_path / "epub"
    assert build_main(["-q", "-E", "-b", "epub", str(root), str(out)]) == 0
    page = (out / "index.xhtml").read_text("utf-8")
    assert "RECOM&#173;MENDED" in page and "<wbr/>" in page
    defusedxml.ElementTree.fromstring(page.encode())
