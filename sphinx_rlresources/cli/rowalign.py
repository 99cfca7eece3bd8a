"""Which column each cell of a row short of cells belongs to, told by what the cells hold.

Hand-written pages have rows with fewer cells than their header: on the seed page every
row lacks its Model, Link and Contributor cells, so ``GRPO-LoRA`` stands in the Model
column.  Position cannot tell which cells are missing, but content often can: a tag is
MIN or RECOMMENDED, a resource is ``N*DEVICE``, a model names a size (``7B``), a max batch
is a whole number, a link is a link.  Every order-keeping way to place the cells under
the header's columns is tried; a placing needs each cell to be possible in its column
and scores one for each cell its column recognises for sure (a known backend, engine or
algorithm).  Only a single best placing is used: when two placings score the same, the
row stays unread, as before (the importer reports it), since a guess would be a wrong value.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence

from sphinx_rlresources.cli.pageread import Cell

MAX_PLACINGS = 5000
"""The most placings tried: a 9-column header and 6 cells have 84."""

# A row lacking more than a third of its header's cells is not placed: what is left of it
# says too little to be a row (a lone ``MIN`` would become eight placeholders).

_SIZE = re.compile(r"(?i)(?<![a-z])\d+(?:\.\d+)?[bmk](?![a-z])|\d+x\d+(?:\.\d+)?b")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9.+_-]*$")
_RESOURCE = re.compile(r"^\d+\s*[*x×]\s*[A-Za-z0-9][A-Za-z0-9.+-]*$")
_LINKISH = re.compile(r"`|\.sh\b|/|^:download:|^https?://|^\[.*\]\(.*\)$")
_ALGORITHM = re.compile(r"(?i)grpo|ppo|dapo|gspo|rloo|remax|reinforce|dpo|sft|gae|lora")
_BACKENDS = frozenset({"fsdp", "fsdp2", "megatron", "mcore", "dtensor", "deepspeed", "automodel"})
_ENGINE = re.compile(r"(?i)^(vllm|sglang|hf|trtllm|tensorrt-llm|lmdeploy)-?v?\d*[0-9a-z.+-]*$")
_EMPTY = frozenset({"", "-", "\\", "—", "–"})

Fit = Callable[[str], int]
"""How a cell's text fits a column: -1 impossible, 0 possible, 1 recognised for sure."""


def _tag(text: str) -> int:
    return 1 if text.upper() in ("MIN", "RECOMMENDED") else -1


def _model(text: str) -> int:
    return 1 if _SIZE.search(text) and " " not in text.strip() else -1


def _task(text: str) -> int:
    if not _NAME.match(text) or _SIZE.search(text) or _tag(text) == 1:
        return -1
    return 1 if _ALGORITHM.search(text) else 0


def _resource(text: str) -> int:
    return 1 if _RESOURCE.match(text) else -1


def _max_batch(text: str) -> int:
    return 1 if text.isdigit() else 0 if text in _EMPTY else -1


def _train(text: str) -> int:
    if not _NAME.match(text) or _tag(text) == 1:
        return -1
    return 1 if text.lower() in _BACKENDS else 0


def _infer(text: str) -> int:
    if _ENGINE.match(text.replace(" ", "")):
        return 1
    return 0 if _NAME.match(text) and _tag(text) != 1 else -1


def _script(text: str) -> int:
    return 1 if _LINKISH.search(text) else -1


def _anything(text: str) -> int:
    return 0 if text and text not in _EMPTY and _RESOURCE.match(text) is None else -1


FITS: dict[str | None, Fit] = {
    "tag": _tag,
    "model": _model,
    "task": _task,
    "resource": _resource,
    "max_batch": _max_batch,
    "train": _train,
    "infer": _infer,
    "script": _script,
    "contributor": _anything,
    None: _anything,
}


def _score(texts: Sequence[str], keys: Sequence[str | None], columns: Sequence[int]) -> int | None:
    total = 0
    for text, column in zip(texts, columns, strict=True):
        fit = FITS.get(keys[column], _anything)(text)
        if fit < 0:
            return None
        total += fit
    return total


def place(row: Sequence[Cell], keys: Sequence[str | None]) -> list[int] | None:
    """The header column of each cell, in order, when one placing is best; None otherwise."""
    lacking = len(keys) - len(row)
    if not row or lacking < 1 or lacking > max(1, len(keys) // 3) or math.comb(len(keys), len(row)) > MAX_PLACINGS:
        return None
    texts = [cell.text.strip() for cell in row]
    best: list[int] | None = None
    best_score = -1
    tied = False
    for columns in itertools.combinations(range(len(keys)), len(row)):
        score = _score(texts, keys, columns)
        if score is None or score < best_score:
            continue
        tied = score == best_score
        if score > best_score:
            best, best_score = list(columns), score
    return None if tied or best is None else best
