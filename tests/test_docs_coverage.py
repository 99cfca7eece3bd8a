"""Docs are part of the feature: every option, config value and subtype is documented."""

from __future__ import annotations

import re

from conftest import REPO

from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.settings import CONF_SETTINGS
from sphinx_rlresources.sphinxext.table import RLResourceTable


def docs_text() -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted((REPO / "docs").glob("*.rst")))


def test_every_config_value_has_a_confval_entry_with_an_example() -> None:
    text = docs_text()
    for name in CONF_SETTINGS:
        match = re.search(rf"^\.\. confval:: {name}\n(.*?)(?=^\.\. confval::|^\S)", text, re.M | re.S)
        assert match, f"{name} is not documented with .. confval::"
        assert f"{name} =" in match.group(1), f"{name} has no example"


def test_every_warning_subtype_has_its_own_section() -> None:
    text = docs_text()
    for subtype in Subtype:
        assert f".. _check-{subtype.value}:" in text, subtype.code
        assert f"``{subtype.code}``" in text, subtype.code


def test_every_table_option_is_documented() -> None:
    text = docs_text()
    for option in RLResourceTable.option_spec:
        assert f"``:{option}:``" in text, option
