"""Model shapes, and their parameter counts and KV-cache sizes computed exactly from them.

A decoder-only transformer is counted layer by layer from its Hugging Face
``config.json`` fields: token embeddings (and an untied output head), attention with
grouped key/value heads (Qwen2's q/k/v biases, Qwen3's q/k norms, DeepSeek's
multi-head latent attention), a gated MLP or mixture-of-experts (routed and shared
experts, router weights), and RMSNorm weights.  The counts agree with the published
totals to the parameter (``tests/test_estimator.py``; docs/estimator.rst lists them).

A ``config.json`` given as a path is read offline, as untrusted input: a regular file,
bounded in size, plain numbers only; nothing is downloaded.
"""

from __future__ import annotations

import functools
import json
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_CONFIG_BYTES = 1_000_000
MIN_BILLIONS = 0.001
MAX_BILLIONS = 100_000.0
"""A size label outside these bounds (in billions of parameters) names no model the estimator can stand in for."""


class ConfigError(Exception):
    """A ``config.json`` that cannot be read as a model shape; the message says why."""


@dataclass(frozen=True)
class Architecture:
    """The shape of a decoder-only model (names as in Hugging Face configs)."""

    name: str
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    tied: bool = False
    qkv_bias: bool = False
    head_dim: int = 0
    """0: hidden / heads."""
    qk_norm: bool = False
    # mixture of experts (0 experts: a dense model)
    experts: int = 0
    experts_per_token: int = 0
    moe_intermediate: int = 0
    shared_experts: int = 0
    dense_layers: int = 0
    """The first layers that keep a dense MLP (DeepSeek's ``first_k_dense_replace``)."""
    router_bias: bool = False
    # multi-head latent attention (DeepSeek-V2/V3); 0: ordinary attention
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_dim: int = 0
    qk_rope_dim: int = 0
    v_head_dim: int = 0
    size_only: int = 0
    """For an unknown model: its parameter count from a size label, and nothing else known."""
    published: int | None = field(default=None, compare=False)
    """The total the model's authors publish, for the docs' validation table."""

    @property
    def dim(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def mla(self) -> bool:
        return self.kv_lora_rank > 0

    # -- parameters ----------------------------------------------------------------

    def attention_params(self) -> int:
        d, h, kv, hd = self.hidden, self.heads, self.kv_heads, self.dim
        if self.mla:
            q = d * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * h * (self.qk_nope_dim + self.qk_rope_dim)
            if not self.q_lora_rank:
                q = d * h * (self.qk_nope_dim + self.qk_rope_dim)
            kv_part = d * (self.kv_lora_rank + self.qk_rope_dim) + self.kv_lora_rank
            kv_part += self.kv_lora_rank * h * (self.qk_nope_dim + self.v_head_dim)
            return q + kv_part + h * self.v_head_dim * d
        count = d * h * hd + 2 * d * kv * hd + h * hd * d
        if self.qkv_bias:
            count += h * hd + 2 * kv * hd
        if self.qk_norm:
            count += 2 * hd
        return count

    def dense_mlp_params(self) -> int:
        return 3 * self.hidden * self.intermediate

    def moe_params(self, active: bool = False) -> int:
        """One MoE layer's experts (all, or those one token uses), shared experts and router."""
        routed = self.experts_per_token if active else self.experts
        count = (routed + self.shared_experts) * 3 * self.hidden * self.moe_intermediate
        count += self.hidden * self.experts + (self.experts if self.router_bias else 0)
        return count

    def layer_params(self, index: int, active: bool = False) -> int:
        mlp = self.dense_mlp_params() if not self.experts or index < self.dense_layers else self.moe_params(active)
        return self.attention_params() + mlp + 2 * self.hidden

    def params(self, active: bool = False) -> int:
        """Every parameter (or, for a mixture of experts, those one token uses)."""
        return _count(self, active)

    def _count(self, active: bool) -> int:
        if self.size_only:
            return self.size_only
        embeddings = self.vocab * self.hidden * (1 if self.tied else 2)
        return embeddings + sum(self.layer_params(i, active) for i in range(self.layers)) + self.hidden

    def largest_layer_params(self) -> int:
        return _largest(self)

    def _largest(self) -> int:
        if self.size_only:
            return 0
        return max(self.layer_params(i) for i in range(self.layers))

    def lora_params(self, rank: int) -> int:
        """Adapter parameters: r * (d_in + d_out) for each linear layer (verl's ``all-linear``)."""
        return rank * _adapted(self)

    def _adapted(self) -> int:
        """The sum of (d_in + d_out) over every adapted linear layer."""
        if self.size_only:
            return 0  # unknown shapes: the lower bound counts no adapter
        d, h, kv, hd = self.hidden, self.heads, self.kv_heads, self.dim
        if self.mla:
            attention = (d + h * (self.qk_nope_dim + self.qk_rope_dim)) + (d + self.kv_lora_rank + self.qk_rope_dim)
            attention += (self.kv_lora_rank + h * (self.qk_nope_dim + self.v_head_dim)) + (h * self.v_head_dim + d)
        else:
            attention = (d + h * hd) + 2 * (d + kv * hd) + (h * hd + d)
        total = 0
        for index in range(self.layers):
            width = self.intermediate if not self.experts or index < self.dense_layers else self.moe_intermediate
            copies = 1 if not self.experts or index < self.dense_layers else self.experts + self.shared_experts
            total += attention + copies * 3 * (d + width)
        return total

    # -- the rollout engine's KV cache -----------------------------------------------

    def kv_bytes_per_token(self, tp: int = 1, dtype_bytes: int = 2) -> int:
        """KV-cache bytes one token takes on one GPU: 2 * layers * kv_heads * head_dim * bytes.

        Tensor parallelism divides the key/value heads while there are enough of them;
        beyond that each GPU keeps one.  Latent attention caches one compressed vector
        per token and layer, which every GPU keeps whole.
        """
        if self.size_only:
            return 0
        if self.mla:
            return self.layers * (self.kv_lora_rank + self.qk_rope_dim) * dtype_bytes
        heads_here = max(1, self.kv_heads // tp) if tp <= self.kv_heads else 1
        return 2 * self.layers * heads_here * self.dim * dtype_bytes

    def tp_choices(self, limit: int) -> list[int]:
        """Tensor-parallel sizes up to ``limit`` that divide the attention heads (and KV heads, if more)."""
        return [t for t in _divisors(self) if t <= limit]


# A load checks thousands of rows against a dozen shapes: count each shape once.
@functools.lru_cache(maxsize=256)
def _count(arch: Architecture, active: bool) -> int:
    return arch._count(active)


@functools.lru_cache(maxsize=256)
def _largest(arch: Architecture) -> int:
    return arch._largest()


@functools.lru_cache(maxsize=256)
def _adapted(arch: Architecture) -> int:
    return arch._adapted()


@functools.lru_cache(maxsize=256)
def _divisors(arch: Architecture) -> tuple[int, ...]:
    """Tensor-parallel sizes the heads allow: dividing the query heads, and the KV heads or a multiple of them."""
    kv = arch.kv_heads
    return tuple(t for t in range(1, arch.heads + 1) if arch.heads % t == 0 and (kv % t == 0 or t % kv == 0))


def _qwen25(
    name: str, d: int, layers: int, h: int, kv: int, ffn: int, vocab: int, tied: bool, total: int
) -> Architecture:
    return Architecture(name, d, layers, h, kv, ffn, vocab, tied=tied, qkv_bias=True, published=total)


def _llama(name: str, d: int, layers: int, h: int, kv: int, ffn: int, total: int) -> Architecture:
    return Architecture(name, d, layers, h, kv, ffn, 128256, published=total)


def _qwen3(name: str, d: int, layers: int, h: int, ffn: int, tied: bool, total: int) -> Architecture:
    return Architecture(name, d, layers, h, 8, ffn, 151936, tied=tied, head_dim=128, qk_norm=True, published=total)


#: The bundled shapes, from each model's ``config.json``; ``published`` is the total its
#: authors give (the Hugging Face weights' metadata; for tied Qwen3 models, without the
#: stored copy of the tied output head).
BUNDLED: dict[str, Architecture] = {
    a.name.lower(): a
    for a in [
        _qwen25("Qwen2.5-0.5B", 896, 24, 14, 2, 4864, 151936, True, 494_032_768),
        _qwen25("Qwen2.5-1.5B", 1536, 28, 12, 2, 8960, 151936, True, 1_543_714_304),
        _qwen25("Qwen2.5-3B", 2048, 36, 16, 2, 11008, 151936, True, 3_085_938_688),
        _qwen25("Qwen2.5-7B", 3584, 28, 28, 4, 18944, 152064, False, 7_615_616_512),
        _qwen25("Qwen2.5-14B", 5120, 48, 40, 8, 13824, 152064, False, 14_770_033_664),
        _qwen25("Qwen2.5-32B", 5120, 64, 40, 8, 27648, 152064, False, 32_763_876_352),
        _qwen25("Qwen2.5-72B", 8192, 80, 64, 8, 29568, 152064, False, 72_706_203_648),
        _qwen25("Qwen2-7B", 3584, 28, 28, 4, 18944, 152064, False, 7_615_616_512),
        _qwen25("Qwen2-72B", 8192, 80, 64, 8, 29568, 152064, False, 72_706_203_648),
        _llama("Llama-3.1-8B", 4096, 32, 32, 8, 14336, 8_030_261_248),
        _llama("Llama-3.1-70B", 8192, 80, 64, 8, 28672, 70_553_706_496),
        _llama("Llama-3.1-405B", 16384, 126, 128, 8, 53248, 405_853_388_800),
        _qwen3("Qwen3-0.6B", 1024, 28, 16, 3072, True, 596_049_920),
        _qwen3("Qwen3-1.7B", 2048, 28, 16, 6144, True, 1_720_574_976),
        _qwen3("Qwen3-4B", 2560, 36, 32, 9728, True, 4_022_468_096),
        _qwen3("Qwen3-8B", 4096, 36, 32, 12288, False, 8_190_735_360),
        _qwen3("Qwen3-14B", 5120, 40, 40, 17408, False, 14_768_307_200),
        _qwen3("Qwen3-32B", 5120, 64, 64, 25600, False, 32_762_123_264),
        Architecture(
            "Qwen3-30B-A3B", 2048, 48, 32, 4, 6144, 151936, head_dim=128, qk_norm=True,
            experts=128, experts_per_token=8, moe_intermediate=768, published=30_532_122_624,
        ),
        Architecture(
            "DeepSeek-V3", 7168, 61, 128, 128, 18432, 129280, experts=256, experts_per_token=8,
            moe_intermediate=2048, shared_experts=1, dense_layers=3, router_bias=True, q_lora_rank=1536,
            kv_lora_rank=512, qk_nope_dim=128, qk_rope_dim=64, v_head_dim=128, published=671_026_419_200,
        ),
    ]
}  # fmt: skip

_SUFFIXES = ("-instruct", "-chat", "-base", "-hf", "-it")


def bundled(name: str) -> Architecture | None:
    """A bundled shape by model name or hub id (``Qwen/Qwen2.5-7B-Instruct`` is Qwen2.5-7B)."""
    key = name.strip().rstrip("/").rsplit("/", 1)[-1].lower()
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if key.endswith(suffix):
                key, changed = key[: -len(suffix)], True
    key = key.replace("meta-llama-", "llama-").replace("llama-3-", "llama-3.1-")
    return BUNDLED.get(key)


def _int(config: dict[str, Any], key: str, default: int | None = None) -> int:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        if default is None or key in config:
            raise ConfigError(f"'{key}' must be a whole number, not {json.dumps(value)[:40]}")
        return default
    return value


def from_config(path: Path) -> Architecture:
    """A shape from a Hugging Face ``config.json`` on disk (offline; no download)."""
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(f"'{path}' is not a regular file")
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"'{path}' is larger than {MAX_CONFIG_BYTES} bytes; a config.json is a few KiB")
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"'{path}' does not exist; give a bundled model name or a config.json") from None
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ConfigError(f"'{path}' cannot be read as JSON ({err})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"'{path}' is not a JSON object")
    if isinstance(config.get("text_config"), dict):  # multimodal wrappers keep the decoder here
        config = config["text_config"]
    model_type = str(config.get("model_type", ""))
    heads = _int(config, "num_attention_heads")
    experts = _int(config, "n_routed_experts", 0) or _int(config, "num_experts", 0)
    return Architecture(
        name=path.parent.name or path.name,
        hidden=_int(config, "hidden_size"),
        layers=_int(config, "num_hidden_layers"),
        heads=heads,
        kv_heads=_int(config, "num_key_value_heads", heads),
        intermediate=_int(config, "intermediate_size"),
        vocab=_int(config, "vocab_size"),
        tied=bool(config.get("tie_word_embeddings", False)),
        qkv_bias=model_type in ("qwen2", "qwen2_moe") or bool(config.get("attention_bias", False)),
        head_dim=_int(config, "head_dim", 0) if config.get("head_dim") is not None else 0,
        qk_norm=model_type in ("qwen3", "qwen3_moe"),
        experts=experts,
        experts_per_token=_int(config, "num_experts_per_tok", 0),
        moe_intermediate=_int(config, "moe_intermediate_size", 0),
        shared_experts=_int(config, "n_shared_experts", 0),
        dense_layers=_int(config, "first_k_dense_replace", 0),
        router_bias=model_type in ("deepseek_v3",),
        q_lora_rank=_int(config, "q_lora_rank", 0) if config.get("q_lora_rank") is not None else 0,
        kv_lora_rank=_int(config, "kv_lora_rank", 0),
        qk_nope_dim=_int(config, "qk_nope_head_dim", 0),
        qk_rope_dim=_int(config, "qk_rope_head_dim", 0),
        v_head_dim=_int(config, "v_head_dim", 0),
    )


def by_size(label: str) -> Architecture | None:
    """A stand-in for an unknown model, from a size label (``14B``): its parameters only.

    Used only for lower bounds: every per-token term (KV cache, activations) is left
    out, and the count is the label's number, below any real model of that size.
    """
    text = label.strip().upper().removesuffix("B")
    try:
        billions = float(text)
    except ValueError:
        return None
    if not MIN_BILLIONS <= billions <= MAX_BILLIONS:  # also refuses nan and inf ('nanB', 'infB')
        return None
    return Architecture(f"{label} (size only)", 1, 1, 1, 1, 0, 0, size_only=int(billions * 1e9))
