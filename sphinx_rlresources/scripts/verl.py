"""What the reader knows of verl, the framework whose launch scripts it reads.

Kept apart from the shell reading so that supporting another trainer means adding
knowledge here, not touching the lexer or the interpreter.
"""

from __future__ import annotations

import re

#: verl's own trainer configs; other names may set anything, so defaults are not assumed.
STOCK_CONFIGS = frozenset({"ppo_trainer", "ppo_megatron_trainer"})
#: The trainers whose default config is ``ppo_trainer``.
STOCK_ENTRY_POINTS = frozenset({"verl.trainer.main_ppo", "verl/trainer/main_ppo.py"})

KEY_RE = re.compile(r"(\+\+|\+)?([A-Za-z_][A-Za-z0-9_\-]*(?:[./@][A-Za-z0-9_\-]+)*)")
"""A Hydra override key (``trainer.nnodes``, ``+extra.key``, ``++forced``)."""
