"""Model names (``Qwen/Qwen2.5-7B-Instruct``, ``$MODEL_DIR``): keyed, shortened and told from placeholders.

The naming checks, the cross-checks, ``rlresources new`` and the estimator's bundled
shapes each compare a model a row names with one a script loads; they all ask this
module, so one spelling of a model means the same model everywhere.  It lives in
``safe`` because the estimator, which may not import ``core``, needs it too.
"""

from __future__ import annotations

import re

from sphinx_rlresources.safe.sizes import size_word

SUFFIX_WORDS = ("instruct", "chat", "base", "hf", "it")
"""Words a checkpoint's name adds that say nothing of the model trained (``-Instruct``)."""
_TRAILING_SUFFIX = re.compile(rf"-(?:{'|'.join(SUFFIX_WORDS)})$", re.IGNORECASE)
_NAME_BREAKS = re.compile(r"[-_\s]+")
_WORD_BREAKS = re.compile(r"[-_/\s]+")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def checkpoint_name(text: str) -> str:
    """A checkpoint's name as the tables write it: ``Qwen/Qwen2.5-32B-Instruct`` -> ``Qwen2.5-32B``.

    The last part of a path or hub id, without its trailing chat or instruct words; the
    case is kept.
    """
    short = text.rstrip("/").rsplit("/", 1)[-1]
    while _TRAILING_SUFFIX.search(short):
        short = _TRAILING_SUFFIX.sub("", short)
    return short


def model_key(text: str) -> str:
    """A model's name reduced to what identifies it: ``Qwen/Qwen2.5-7B-Instruct`` -> ``qwen257b``.

    Two names agree when one key holds the other (``Llama-3.1-8B`` and
    ``meta-llama/Meta-Llama-3.1-8B-Instruct``).
    """
    last = text.rstrip("/").rsplit("/", 1)[-1].lower()
    words = [w for w in _NAME_BREAKS.split(last) if w and w not in SUFFIX_WORDS]
    return _NOT_ALNUM.sub("", "".join(words))


def model_words(model: str) -> tuple[str, ...]:
    """The words of a row's model up to its size: ``Qwen/Qwen2.5-7B-Instruct`` -> (qwen2.5, 7b).

    The organisation and what follows the size (``-Instruct``) are left out: script names
    rarely carry them.  A model with no size in its name keeps all its words.
    """
    words = [word for word in _WORD_BREAKS.split(model.rsplit("/", 1)[-1].lower()) if word]
    for index, word in enumerate(words):
        if size_word(word):
            return tuple(words[: index + 1])
    return tuple(words)


def loaded_model(value: str | None, tail: str) -> str | None:
    """The model a script loads, or None where only a placeholder stands for it.

    ``value`` is the path when the script settles it; else ``tail`` is the text known
    after a variable, which names a model only with a folder in it
    (``$HOME/models/Qwen2.5-7B``), not as ``$MODEL_DIR`` or ``${PREFIX}-7B``.
    """
    if value is not None:
        return value
    return tail if "/" in tail.rstrip("/") else None
