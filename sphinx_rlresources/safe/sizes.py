"""Size labels (``70B``, ``0.5b``, ``8x7B``, ``235B-A22B``): keyed, parsed, ordered and found in text.

Every module that reads a size (the loader, the queries, the importer, ``new``, the
naming checks, the estimator's stand-in model) asks this one, so a label means the
same count everywhere.  It lives in ``safe`` because the estimator, which may not
import ``core``, needs it too.
"""

from __future__ import annotations

import re

_NUMBER = r"\d+(?:\.\d+)?"
_UNITS = "KMBT"
_PLAIN = re.compile(rf"^({_NUMBER})([{_UNITS}])?$", re.IGNORECASE)
_EXPERTS = re.compile(rf"^(\d+)x({_NUMBER})([{_UNITS}])$", re.IGNORECASE)
"""``8x7B``: eight experts of 7B each, counted as their product (56B)."""
_ACTIVE = re.compile(rf"^({_NUMBER})([{_UNITS}])-A{_NUMBER}[{_UNITS}]$", re.IGNORECASE)
"""``235B-A22B``: a mixture of experts counted by its total (235B), not its active part."""
_WORD = re.compile(rf"({_NUMBER})([{_UNITS}])", re.IGNORECASE)
"""A whole word that is a size with its unit: ``7b``, ``0.5B``, ``500m``."""
_IN_HEADING = re.compile(rf"(?<![\w.])({_NUMBER})\s?([{_UNITS}])(?![\w])", re.IGNORECASE)
"""A size in a heading's prose: ``7B``, ``Qwen2.5-7B models``, ``7 b`` (never inside a word)."""
_IN_NAME = re.compile(r"(?<![0-9.])([0-9]+(?:\.[0-9]+)?)b(?![a-z0-9])")
"""A size in billions inside a lowercased model name, glued to letters: ``qwen2.5-7b``, ``llama7b``."""
_SCALE = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12, None: 1.0}


def size_key(label: str) -> str:
    """The case-insensitive key a directive argument and a file name are matched by."""
    return label.strip().lower()


def parameters(label: str) -> float | None:
    """The parameter count a label names (``7B`` -> 7e9, ``8x7B`` -> 5.6e10), or None for another label.

    A label without a unit counts as that many parameters; a count of thousands of
    digits is infinite (a float), never an error.
    """
    text = label.strip()
    plain = _PLAIN.match(text)
    if plain:
        unit = plain.group(2).upper() if plain.group(2) else None
        return float(plain.group(1)) * _SCALE[unit]
    experts = _EXPERTS.match(text)
    if experts:
        return float(experts.group(1)) * float(experts.group(2)) * _SCALE[experts.group(3).upper()]
    active = _ACTIVE.match(text)
    if active:
        return float(active.group(1)) * _SCALE[active.group(2).upper()]
    return None


def size_order(label: str) -> tuple[int, float, str]:
    """Sort sizes by parameter count (0.5B < 1.8B < 7B < 8x7B < 70B < 235B-A22B < 671B); other labels go last.

    The one rule for size order: the data set, the filters, the chart, the coverage
    table and the JSON file all follow it.
    """
    count = parameters(label)
    return (1, 0.0, label.lower()) if count is None else (0, count, label.lower())


def size_word(word: str) -> str | None:
    """``7B`` for a word that is a size with its unit (``7b``, a folder or a name's part), else None."""
    match = _WORD.fullmatch(word)
    return f"{match.group(1)}{match.group(2).upper()}" if match else None


def heading_size(text: str) -> str | None:
    """``7B`` from a heading such as ``7B``, ``Qwen2.5-7B models`` or ``7 b``; None if none or several."""
    found = {f"{m.group(1)}{m.group(2).upper()}" for m in _IN_HEADING.finditer(text)}
    return found.pop() if len(found) == 1 else None


def billions_in_name(text: str) -> list[str]:
    """Every size in billions a model's name says, lowercased and in order: ``Qwen2.5-7B`` -> ``['7b']``."""
    return [f"{number}b" for number in _IN_NAME.findall(text.lower())]
