"""The bash facts every part of the reader shares: its bounds, and the shapes of names and numbers.

The bounds keep reading an untrusted script linear in its size: any value, nesting or
number beyond them becomes *unknown* rather than being computed.
"""

from __future__ import annotations

import re

MAX_SCRIPT_CHARS = 1_000_000
"""A larger script is not read (reported as a problem): launchers are a few KiB."""
MAX_VALUE_CHARS = 65_536
"""A variable that grows beyond this (``a=$a$a`` doubling) becomes unknown."""
MAX_NESTING = 32
"""Deeper ``${a:-${b:-...}}`` or ``$(( ((...)) ))`` nesting becomes unknown."""
MAX_ARITH_CHARS = 4096
MAX_PARAMETER_CHARS = 4096
"""A longer ``${...}`` is unknown unparsed: real defaults are short, and each nesting
level would otherwise re-read the text."""
MAX_WORK = 100_000
"""Steps one reading may take in all: each word expanded, each part and arithmetic term,
each token of a function body or sourced file walked.  Depth alone does not bound work:
ten variables that each name the one before twice (``x1='x0+x0'``) make one ``$((x9))``
cost 2**10 evaluations, and eight functions that each call the one before ten times make
10**8 calls."""
MAX_FIELDS = 100_000
"""Arguments one reading may make by expansion in all: unquoted splitting, ``"${A[@]}"``
and ``"$@"`` copy fields, and a function that passes ``"$@" "$@"`` on doubles them at
each call.  A launcher makes a few hundred."""
MAX_TEXT = 4_000_000
"""Characters of text one reading may make by expansion or read from sourced files in
all: a 64 KiB value split or joined on every line would otherwise make gigabytes."""
MAX_REPORTED_UNSET = 20
"""Uses of unset variables reported for one script; one more finding counts the rest."""
MAX_INT = 2**63 - 1
"""Bash integers are 64-bit; a result beyond that is unknown rather than wrapped."""

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
INT_RE = re.compile(r"[+-]?[0-9]{1,19}")


class Exhausted(Exception):
    """A reading ran out of its budget (``resource``: steps, fields or text): what follows is unknown."""

    def __init__(self, resource: str, line: int, file: str) -> None:
        super().__init__(resource)
        self.resource = resource
        self.line = line
        self.file = file


#: Variables a launcher may rightly take from its environment without setting them.
WELL_KNOWN_ENV = frozenset(
    {
        "HOME",
        "PWD",
        "OLDPWD",
        "USER",
        "LOGNAME",
        "SHELL",
        "PATH",
        "HOSTNAME",
        "HOST",
        "TMPDIR",
        "TMP",
        "TEMP",
        "LANG",
        "LC_ALL",
        "TERM",
        "UID",
        "EUID",
        "PPID",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "BASH_SOURCE",
        "BASH_VERSION",
        "BASHPID",
        "HOSTTYPE",
        "OSTYPE",
        "MACHTYPE",
        "IFS",
        "SHLVL",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "FUNCNAME",
        "PYTHONPATH",
        "LD_LIBRARY_PATH",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "MASTER_ADDR",
        "MASTER_PORT",
        "WORLD_SIZE",
        "RANK",
        "LOCAL_RANK",
        "NODE_RANK",
    }
)
#: Prefixes of variables that schedulers and libraries set (``SLURM_NNODES``, ``HF_HOME``).
WELL_KNOWN_ENV_PREFIXES = (
    "SLURM_",
    "PBS_",
    "OMPI_",
    "PMI_",
    "PMIX_",
    "RAY_",
    "WANDB_",
    "HF_",
    "HUGGINGFACE_",
    "CUDA_",
    "NCCL_",
    "VLLM_",
    "SGLANG_",
    "TORCH_",
    "XDG_",
)


def is_well_known_env(name: str) -> bool:
    """Whether ``name`` is a variable a script may take from its environment unremarked."""
    return name in WELL_KNOWN_ENV or name.startswith(WELL_KNOWN_ENV_PREFIXES)
