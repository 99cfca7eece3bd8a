"""prime-rl's evals configs: ``uv run evals @ x.toml``, evaluations against a live inference server.

An evals config (``EvalsConfig``, packages/prime-rl-configs/src/prime_rl/configs/evals.py
at PrimeIntellect-ai/prime-rl@559b447) names the model the server serves (``model``,
``Qwen/Qwen3-0.6B`` unless said, evals.py:73), the eval sources (``[[eval.source]]``) and
the client of the server (``[eval.client]``, ``base_url`` ``http://localhost:8000/v1``
unless said, shared.py:160).  The evals process starts no inference server and trains
nothing: it sends requests.  So its GPUs are those of the server -- none of this run's
when ``base_url`` names another host and no ``[online]`` block updates the server's
weights (evals.py:82); a local server is started elsewhere, on GPUs this file does not
say.  Nothing here is an engine or a train backend.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from sphinx_rlresources.safe.tomlsafe import TomlDocument
from sphinx_rlresources.scripts.frameworks.base import as_recipe_model, default
from sphinx_rlresources.scripts.run import Found, Origin, Run

NAME = "prime-rl"
KEYS = frozenset({"model", "eval", "online", "weight_broadcast", "output_dir", "log", "monitors"})
"""EvalsConfig's fields (evals.py:64-103)."""
DEFAULT_URL = "http://localhost:8000/v1"


def claims(document: TomlDocument) -> bool:
    """An evals config: only EvalsConfig's keys, with an ``[eval]`` table of a client or sources."""
    value = document.value
    section = value.get("eval")
    return set(value) <= KEYS and isinstance(section, dict) and bool(section.keys() & {"client", "source"})


def read(document: TomlDocument, path: str) -> Run:
    """The :class:`Run` of an evals config: the model it asks for, and no GPU when the server is another host's."""
    value = document.value
    return Run(path=path, framework=NAME, gpus=_gpus(document), model=_model(document, value))


def _model(document: TomlDocument, value: dict[str, Any]) -> Found[str]:
    if "model" not in value:
        return default("Qwen/Qwen3-0.6B", "model: Qwen/Qwen3-0.6B (prime-rl's default, evals.py:73)")
    model = as_recipe_model(value["model"])
    origin = Origin.SET if model is not None else Origin.UNKNOWN
    return Found(model, origin, document.line(("model",)), f"model = {str(value['model'])[:80]}")


def _gpus(document: TomlDocument) -> Found[int]:
    section = document.value["eval"]
    client = section.get("client")
    url = client.get("base_url", DEFAULT_URL) if isinstance(client, dict) else DEFAULT_URL
    line = document.line(("eval", "client", "base_url")) if isinstance(client, dict) and "base_url" in client else 0
    if "online" in document.value:
        why = "[online]: the evals update a server's weights, a server started elsewhere on GPUs not said here"
        return Found(None, Origin.UNKNOWN, document.line(("online",)), why)
    if _local(url):
        why = f"eval.client.base_url = {str(url)[:80]}: a server on this machine, on GPUs not said here"
        return Found(None, Origin.UNKNOWN, line, why)
    why = f"eval.client.base_url = {url[:80]}: the model is served by another host; the evals process uses no GPU"
    return Found(0, Origin.DERIVED, line, why)


def _local(url: object) -> bool:
    """Whether a URL names this machine, or may (unreadable): ``localhost``, a loopback or unspecified address."""
    try:
        host = urlsplit(url.strip()).hostname if isinstance(url, str) else None
    except ValueError:
        return True
    if host is None or host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a host name: another machine's
    return address.is_loopback or address.is_unspecified


__all__ = ["NAME", "claims", "read"]
