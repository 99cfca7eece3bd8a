"""The settings tables every adapter reads its script with (``scripts/frameworks/base.py``: Setting, Table)."""

from __future__ import annotations

from typing import Any

import pytest

from sphinx_rlresources.scripts.frameworks import SETTINGS_TABLES
from sphinx_rlresources.scripts.frameworks.base import (
    Setting,
    Table,
    as_bool,
    as_int,
    deprecated,
    from_override,
)
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin
from sphinx_rlresources.scripts.settings import Override

TABLE = Table(
    "demo",
    {
        "nodes": Setting(("trainer.nnodes",), as_int, 1, "demo.yaml@abc:12", old=("nnodes",), old_default=False),
        "offload": Setting(("offload",), as_bool),
    },
    "{key}={value} (demo's default, {source})",
)


def _written(**keys: str) -> dict[str, Override]:
    return {
        key.replace("__", "."): Override(key.replace("__", "."), value, f"{key}={value}", 3)
        for key, value in keys.items()
    }


def _read(written: dict[str, Override], name: str = "nodes", **options: bool) -> Found[Any]:
    return TABLE.read(name, lambda key, convert: from_override(written.get(key), convert), **options)


def test_a_written_setting_wins_and_today_s_spelling_before_the_old_one() -> None:
    found = _read(_written(trainer__nnodes="4", nnodes="2"))
    assert (found.value, found.origin, found.line) == (4, Origin.SET, 3)
    assert _read(_written(nnodes="2")).value == 2


def test_a_silent_setting_takes_the_default_shown_with_its_source() -> None:
    found = _read({})
    assert (found.value, found.origin) == (1, Origin.FRAMEWORK_DEFAULT)
    assert found.written == "trainer.nnodes=1 (demo's default, demo.yaml@abc:12)"


def test_no_default_where_defaults_do_not_hold_or_the_old_releases_differ() -> None:
    assert _read({}, defaults=False) is UNKNOWN
    assert _read({}, old_dialect=True) is UNKNOWN  # old_default=False: the old releases had another
    assert _read({}, "offload") is UNKNOWN  # no default: known only when written


def test_deprecated_keys_are_warned_at_their_line() -> None:
    [problem] = deprecated({"nnodes": "use trainer.nnodes"}, _written(nnodes="2"), "{key} is old; {advice}")
    assert (problem.line, problem.message, problem.key) == (3, "nnodes is old; use trainer.nnodes", "nnodes")
    assert (problem.kind, problem.severity) == ("deprecated", "warning")


@pytest.mark.parametrize("table", SETTINGS_TABLES.values(), ids=list(SETTINGS_TABLES))
def test_every_default_reads_back_through_its_own_converter(table: Table) -> None:
    """A default of the wrong type (``"8"`` for an int, ``1`` for a bool) would be a table that lies."""
    for name, setting in table.settings.items():
        assert setting.keys or setting.old, name
        if setting.default is not None:
            text = str(setting.default).lower() if isinstance(setting.default, bool) else str(setting.default)
            assert setting.convert(text) == setting.default, (table.framework, name)
            assert table.shown.format(key="k", value=setting.default, source=setting.source)
