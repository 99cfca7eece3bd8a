"""Model shapes, and their parameter counts and KV-cache sizes computed exactly from them.

A decoder-only transformer is counted layer by layer from its Hugging Face
``config.json`` fields: token embeddings (and an untied output head), attention with
grouped key/value heads (Qwen2's q/k/v biases, Qwen3's q/k norms, DeepSeek's
multi-head latent attention), a gated MLP or mixture-of-experts (routed and shared
experts, router weights), and RMSNorm weights.  The counts agree with the published
totals to the parameter (``tests/test_estimator.py``; docs/estimator.rst lists them).

A vision-language model adds its vision tower (counted exactly for Qwen2-VL and
Qwen2.5-VL, from the layer sizes of any other ``vision_config``), which the trainer and
the rollout engine both hold but which adds nothing to the KV cache.

A ``config.json`` given as a path is read offline, as untrusted input: a regular file,
bounded in size and nesting, plain whole numbers inside the bounds of
:data:`SHAPE_BOUNDS` (a hundred-billion-layer model would make every count loop for
ever, a zero head count divide by zero); nothing is downloaded.
"""

from __future__ import annotations

import functools
import json
import stat
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from sphinx_rlresources.safe.models import checkpoint_name
from sphinx_rlresources.safe.sizes import parameters

MAX_CONFIG_BYTES = 1_000_000
ALL_LINEAR = "all-linear"
"""PEFT's name for every linear layer but the output head (verl's default ``target_modules``)."""
MLP_MODULES = frozenset({"gate_proj", "up_proj", "down_proj"})
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
    qk_norm_whole: bool = False
    """The q and k norms span every head (OLMoE's RMSNorm over heads x head_dim), not one head's width."""
    # mixture of experts (0 experts: a dense model)
    experts: int = 0
    experts_per_token: int = 0
    moe_intermediate: int = 0
    shared_experts: int = 0
    """The shared expert's width in routed experts' widths: one MLP sees every token (DeepSeek's
    ``n_shared_experts``; Qwen2-MoE's ``shared_expert_intermediate_size`` / ``moe_intermediate_size``)."""
    shared_gate: bool = False
    """The shared expert's output is scaled by a gate of its own (Qwen2-MoE's ``shared_expert_gate``)."""
    dense_layers: int = 0
    """The first layers that keep a dense MLP (DeepSeek's ``first_k_dense_replace``)."""
    router_bias: bool = False
    # multi-head latent attention (DeepSeek-V2/V3); 0: ordinary attention
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_dim: int = 0
    qk_rope_dim: int = 0
    v_head_dim: int = 0
    vision: int = 0
    """Parameters of a vision tower (a VLM's image encoder and its projector); 0 for a text model."""
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
            count += (h + kv) * hd if self.qk_norm_whole else 2 * hd
        return count

    def dense_mlp_params(self) -> int:
        return 3 * self.hidden * self.intermediate

    def moe_params(self, active: bool = False) -> int:
        """One MoE layer's experts (all, or those one token uses), shared experts and router."""
        routed = self.experts_per_token if active else self.experts
        count = (routed + self.shared_experts) * 3 * self.hidden * self.moe_intermediate
        count += self.hidden * self.experts + (self.experts if self.router_bias else 0)
        return count + (self.hidden if self.shared_gate else 0)

    def layer_params(self, index: int, active: bool = False) -> int:
        mlp = self.dense_mlp_params() if not self.experts or index < self.dense_layers else self.moe_params(active)
        return self.attention_params() + mlp + 2 * self.hidden

    def params(self, active: bool = False) -> int:
        """Every parameter (or, for a mixture of experts, those one token uses)."""
        return self._active_params if active else self._all_params

    # A load checks thousands of rows against a dozen shapes: each shape counts itself once
    # (kept on the instance, so no call hashes its thirty fields to find the count).
    @cached_property
    def _all_params(self) -> int:
        return self._count(False)

    @cached_property
    def _active_params(self) -> int:
        return self._count(True)

    def _count(self, active: bool) -> int:
        if self.size_only:
            return self.size_only
        layers = sum(self.layer_params(i, active) for i in range(self.layers))
        return self.embedding_params() + layers + self.hidden + self.vision

    def expert_params(self) -> int:
        """The routed experts' parameters, which expert parallelism splits (shared experts are not)."""
        if not self.experts or self.size_only:
            return 0
        return (self.layers - self.dense_layers) * self.experts * 3 * self.hidden * self.moe_intermediate

    def embedding_params(self) -> int:
        """The token embeddings and an untied output head: what fp8 rollout leaves in bf16."""
        return 0 if self.size_only else self.vocab * self.hidden * (1 if self.tied else 2)

    def largest_layer_params(self) -> int:
        return self._largest

    @cached_property
    def _largest(self) -> int:
        if self.size_only:
            return 0
        return max(self.layer_params(i) for i in range(self.layers))

    def lora_params(self, rank: int, targets: str = ALL_LINEAR) -> int:
        """Adapter parameters: r * (d_in + d_out) for each adapted linear layer.

        ``targets`` is PEFT's ``target_modules`` as a framework writes it: ``all-linear``
        (verl's default) or module names separated by commas (``q_proj,v_proj``).  Names
        this model has no such layer for add nothing (:func:`unknown_targets` lists them).
        The vision tower and MoE routers are not counted, so the count stays a floor.
        """
        return rank * _adapted(self, normal_targets(targets))

    def _adapted(self, targets: frozenset[str]) -> int:
        """The sum of (d_in + d_out) over every adapted linear layer."""
        if self.size_only:
            return 0  # unknown shapes: the lower bound counts no adapter
        attention = sum(i + o for name, (i, o) in self.attention_modules().items() if name in targets)
        total = 0
        for index in range(self.layers):
            total += attention
            if not self.experts or index < self.dense_layers:
                total += _mlp_adapted(self.hidden, self.intermediate, targets)
                continue
            total += self.experts * _mlp_adapted(self.hidden, self.moe_intermediate, targets)
            if self.shared_experts:  # one MLP, as wide as that many experts
                total += _mlp_adapted(self.hidden, self.shared_experts * self.moe_intermediate, targets)
        return total

    def attention_modules(self) -> dict[str, tuple[int, int]]:
        """Each attention projection's (d_in, d_out), by its Hugging Face module name."""
        d, h, kv, hd = self.hidden, self.heads, self.kv_heads, self.dim
        if not self.mla:
            return {"q_proj": (d, h * hd), "k_proj": (d, kv * hd), "v_proj": (d, kv * hd), "o_proj": (h * hd, d)}
        qk = self.qk_nope_dim + self.qk_rope_dim
        found = {
            "kv_a_proj_with_mqa": (d, self.kv_lora_rank + self.qk_rope_dim),
            "kv_b_proj": (self.kv_lora_rank, h * (self.qk_nope_dim + self.v_head_dim)),
            "o_proj": (h * self.v_head_dim, d),
        }
        if self.q_lora_rank:
            found.update(q_a_proj=(d, self.q_lora_rank), q_b_proj=(self.q_lora_rank, h * qk))
        else:
            found["q_proj"] = (d, h * qk)
        return found

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

    @cached_property
    def _divisors(self) -> tuple[int, ...]:
        """Tensor-parallel sizes the heads allow: dividing the query heads, and the KV heads or a multiple of them."""
        kv = self.kv_heads
        return tuple(t for t in range(1, self.heads + 1) if self.heads % t == 0 and (kv % t == 0 or t % kv == 0))

    def tp_choices(self, gpus: int) -> list[int]:
        """Tensor-parallel sizes that divide the attention heads (and KV heads, if more) and the ``gpus``.

        The engine's GPUs are a mesh of ``gpus / t`` data-parallel replicas of TP ``t``: verl's
        rollout workers assert ``world_size % infer_tp == 0`` (``verl/workers/fsdp_workers.py``),
        so a size that does not divide the GPUs cannot start.
        """
        return [t for t in self._divisors if t <= gpus and gpus % t == 0]


@functools.lru_cache(maxsize=256)
def _adapted(arch: Architecture, targets: frozenset[str]) -> int:
    return arch._adapted(targets)


def _mlp_adapted(hidden: int, width: int, targets: frozenset[str]) -> int:
    """The sum of (d_in + d_out) over a gated MLP's adapted projections: d->f, d->f and f->d."""
    return sum(hidden + width for name in MLP_MODULES if name in targets)


_EVERY_MODULE = (
    frozenset({"q_proj", "k_proj", "v_proj", "o_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj"})
    | MLP_MODULES
)


def normal_targets(targets: str) -> frozenset[str]:
    """``all-linear`` or ``q_proj, v_proj`` (brackets and quotes allowed) as a set of module names."""
    text = targets.strip().strip("[]()").replace("'", "").replace('"', "")
    names = frozenset(n.strip().lower() for n in text.split(",") if n.strip())
    if not names or ALL_LINEAR in names or "all_linear" in names:
        return _EVERY_MODULE
    return names


def unknown_targets(targets: str) -> list[str]:
    """The names of ``targets`` that are no linear layer of any model counted here (empty for ``all-linear``)."""
    return sorted(normal_targets(targets) - _EVERY_MODULE)


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
            "Qwen1.5-MoE-A2.7B", 2048, 24, 16, 16, 5632, 151936, qkv_bias=True, experts=60,
            experts_per_token=4, moe_intermediate=1408, shared_experts=4, shared_gate=True,
            published=14_315_784_192,
        ),
        Architecture(
            "OLMoE-1B-7B-0924", 2048, 16, 16, 16, 1024, 50304, qk_norm=True, qk_norm_whole=True, experts=64,
            experts_per_token=8, moe_intermediate=1024, published=6_919_161_856,
        ),
        Architecture(
            "Mixtral-8x7B", 4096, 32, 32, 8, 14336, 32000, experts=8, experts_per_token=2,
            moe_intermediate=14336, published=46_702_792_704,
        ),
        Architecture(
            "Qwen2.5-VL-7B", 3584, 28, 28, 4, 18944, 152064, qkv_bias=True, vision=676_550_144,
            published=8_292_166_656,
        ),
        Architecture(
            "DeepSeek-V3", 7168, 61, 128, 128, 18432, 129280, experts=256, experts_per_token=8,
            moe_intermediate=2048, shared_experts=1, dense_layers=3, router_bias=True, q_lora_rank=1536,
            kv_lora_rank=512, qk_nope_dim=128, qk_rope_dim=64, v_head_dim=128, published=671_026_419_200,
        ),
    ]
}  # fmt: skip


def bundled(name: str) -> Architecture | None:
    """A bundled shape by model name or hub id (``Qwen/Qwen2.5-7B-Instruct`` is Qwen2.5-7B)."""
    key, before = checkpoint_name(name.strip()).lower(), None
    while key != before:  # Mixtral-8x7B-Instruct-v0.1: the release's version goes too
        before, key = key, checkpoint_name(key.removesuffix("-v0.1"))
    key = key.replace("meta-llama-", "llama-").replace("llama-3-", "llama-3.1-")
    return BUNDLED.get(key)


#: config.json field -> (least, most) it may be.  Generous beyond every published model
#: (Llama-3.1-405B: 16,384 wide and 126 layers; DeepSeek-V3: 256 experts; Qwen: 152,064
#: tokens), tight enough that no count loops for long or overflows a float.
SHAPE_BOUNDS: dict[str, tuple[int, int]] = {
    "hidden_size": (1, 1 << 18),
    "num_hidden_layers": (1, 4096),
    "num_attention_heads": (1, 1 << 14),
    "num_key_value_heads": (1, 1 << 14),
    "head_dim": (0, 1 << 14),
    "intermediate_size": (0, 1 << 21),
    "vocab_size": (1, 1 << 24),
    "n_routed_experts": (0, 1 << 16),
    "num_experts": (0, 1 << 16),
    "num_local_experts": (0, 1 << 16),
    "num_experts_per_tok": (0, 1 << 16),
    "moe_intermediate_size": (0, 1 << 21),
    "n_shared_experts": (0, 1 << 10),
    "shared_expert_intermediate_size": (0, 1 << 24),
    "first_k_dense_replace": (0, 4096),
    "q_lora_rank": (0, 1 << 18),
    "kv_lora_rank": (0, 1 << 18),
    "qk_nope_head_dim": (0, 1 << 14),
    "qk_rope_head_dim": (0, 1 << 14),
    "v_head_dim": (0, 1 << 14),
    # a vision tower (vision_config)
    "depth": (0, 1024),
    "embed_dim": (0, 1 << 16),
    "mlp_ratio": (0, 64),
    "out_hidden_size": (0, 1 << 18),
    "patch_size": (0, 1024),
    "temporal_patch_size": (0, 64),
    "spatial_merge_size": (0, 64),
    "in_chans": (0, 64),
    "in_channels": (0, 64),
}
MAX_NESTING = 32
"""The deepest a config.json may nest: real ones nest 3 levels, and Python's parser recurses."""


def _int(config: dict[str, Any], key: str, default: int | None = None, where: str = "") -> int:
    """A whole number inside :data:`SHAPE_BOUNDS`, or ``default`` when the key is absent or null."""
    value = config.get(key)
    if value is None:
        if default is None:
            raise ConfigError(f"'{where}{key}' is missing; a model's config.json has it")
        return default
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)  # 4096.0 is 4096
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"'{where}{key}' must be a whole number, not {json.dumps(value)[:40]}")
    low, high = SHAPE_BOUNDS.get(key, (0, 1 << 24))
    if not low <= value <= high:
        shown = str(value) if len(str(value)) <= 20 else f"a {len(str(value))}-digit number"
        raise ConfigError(f"'{where}{key}' is {shown}, outside {low}..{high:,}; is this a model's config.json?")
    return value


def _load(path: Path) -> dict[str, Any]:  # noqa: C901 - one guard per way a config.json may not be read
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(f"'{path}' is not a regular file")
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"'{path}' is larger than {MAX_CONFIG_BYTES} bytes; a config.json is a few KiB")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"'{path}' does not exist; give a bundled model name or a config.json") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"'{path}' cannot be read ({err})") from None
    # Python's JSON parser recurses once per level: count the brackets before it sees them.
    level = deepest = 0
    for char in text:  # strings may hold brackets; counting them too only errs on the strict side
        if char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    if deepest > MAX_NESTING:
        raise ConfigError(f"'{path}' nests {deepest} levels deep, more than {MAX_NESTING}; a config.json nests 3")
    try:
        config = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise ConfigError(f"'{path}' cannot be read as JSON ({str(err)[:80]})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"'{path}' is not a JSON object")
    return config


def from_config(path: Path) -> Architecture:
    """A shape from a Hugging Face ``config.json`` on disk (offline; no download)."""
    config = _load(path)
    outer = config
    where = ""
    if isinstance(config.get("text_config"), dict):  # multimodal wrappers keep the decoder here
        config, where = config["text_config"], "text_config."
    model_type = str(config.get("model_type", outer.get("model_type", "")))
    heads = _int(config, "num_attention_heads", where=where)
    kv_heads = _int(config, "num_key_value_heads", heads, where)
    if kv_heads > heads or heads % kv_heads:
        raise ConfigError(f"'{where}num_key_value_heads' is {kv_heads}, which does not divide the {heads} query heads")
    hidden = _int(config, "hidden_size", where=where)
    head_dim = _int(config, "head_dim", 0, where)
    if not head_dim and hidden < heads:
        raise ConfigError(f"'{where}hidden_size' is {hidden}, fewer than the {heads} attention heads")
    experts = (
        _int(config, "n_routed_experts", 0, where)
        or _int(config, "num_experts", 0, where)
        or _int(config, "num_local_experts", 0, where)  # Mixtral
    )
    layers = _int(config, "num_hidden_layers", where=where)
    intermediate = _int(config, "intermediate_size", 0 if experts else None, where)
    # Mixtral's experts are intermediate_size wide; Qwen-MoE and DeepSeek name it moe_intermediate_size.
    moe_intermediate = _int(config, "moe_intermediate_size", intermediate if experts else 0, where)
    # Qwen2-MoE gives its shared expert a width of its own (a whole number of experts' in its releases)
    shared = _int(config, "shared_expert_intermediate_size", 0, where) if experts else 0
    vision = outer.get("vision_config")
    return Architecture(
        name=path.parent.name or path.name,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        intermediate=intermediate,
        vocab=_int(config, "vocab_size", where=where),
        tied=bool(config.get("tie_word_embeddings", outer.get("tie_word_embeddings", False))),
        qkv_bias=model_type in QKV_BIAS_TYPES or config.get("attention_bias") is True,
        head_dim=head_dim,
        qk_norm=model_type in ("qwen3", "qwen3_moe", "olmoe"),
        qk_norm_whole=model_type == "olmoe",
        experts=experts,
        experts_per_token=min(_int(config, "num_experts_per_tok", 0, where), experts),
        moe_intermediate=moe_intermediate,
        shared_experts=_int(config, "n_shared_experts", 0, where) or shared // max(moe_intermediate, 1),
        shared_gate=bool(shared) and model_type == "qwen2_moe",
        dense_layers=min(_int(config, "first_k_dense_replace", 0, where), layers),
        router_bias=model_type in ("deepseek_v3",),
        q_lora_rank=_int(config, "q_lora_rank", 0, where),
        kv_lora_rank=_int(config, "kv_lora_rank", 0, where),
        qk_nope_dim=_int(config, "qk_nope_head_dim", 0, where),
        qk_rope_dim=_int(config, "qk_rope_head_dim", 0, where),
        v_head_dim=_int(config, "v_head_dim", 0, where),
        vision=vision_params(vision, str(outer.get("model_type", ""))) if isinstance(vision, dict) else 0,
    )


QKV_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"})
"""Model types whose q, k and v projections have biases (Qwen2 and the VLMs built on it)."""


def vision_params(vision: dict[str, Any], model_type: str) -> int:
    """A vision tower's parameters from its ``vision_config``.

    Qwen2-VL and Qwen2.5-VL are counted exactly from their modelling code's layers (a
    3-D patch embedding without bias; blocks of biased qkv and output projections, an MLP
    -- plain with LayerNorms in Qwen2-VL, gated with RMSNorms in Qwen2.5-VL -- and a
    merger that projects 2x2 patches to the decoder's width): Qwen2.5-VL-7B's tower is
    676,550,144 parameters, Qwen2-VL-7B's 675,759,104.  Any other tower is counted as
    ViT blocks from its own ``hidden_size``, ``intermediate_size`` and layer count
    (biased attention and MLP, two LayerNorms), without its patch embedding and projector,
    so the count stays at or below the real one.
    """
    where = "vision_config."
    if model_type in ("qwen2_vl", "qwen2_5_vl"):
        depth = _int(vision, "depth", where=where)
        width = _int(vision, "hidden_size" if model_type == "qwen2_5_vl" else "embed_dim", where=where)
        out = _int(vision, "out_hidden_size" if model_type == "qwen2_5_vl" else "hidden_size", where=where)
        merge = _int(vision, "spatial_merge_size", 2, where)
        patch = _int(vision, "patch_size", 14, where) ** 2 * _int(vision, "temporal_patch_size", 2, where)
        patch_embed = _int(vision, "in_chans", _int(vision, "in_channels", 3, where), where) * patch * width
        attention = width * 3 * width + 3 * width + width * width + width
        if model_type == "qwen2_5_vl":
            ffn = _int(vision, "intermediate_size", where=where)
            block = attention + 3 * width * ffn + 2 * ffn + width + 2 * width  # gated MLP, two RMSNorms
            merger_norm = width
        else:
            ffn = width * _int(vision, "mlp_ratio", 4, where)
            block = attention + 2 * width * ffn + ffn + width + 4 * width  # plain MLP, two LayerNorms
            merger_norm = 2 * width
        merged = width * merge * merge
        merger = merger_norm + merged * merged + merged + merged * out + out
        return patch_embed + depth * block + merger
    width = _int(vision, "hidden_size", 0, where)
    ffn = _int(vision, "intermediate_size", 0, where)
    depth = _int(vision, "num_hidden_layers", 0, where) or _int(vision, "depth", 0, where)
    return depth * (4 * width * width + 4 * width + 2 * width * ffn + ffn + width + 4 * width)


def by_size(label: str) -> Architecture | None:
    """A stand-in for an unknown model, from a size label (``14B``): its parameters only.

    One per label, shared by every row that names it (a record of thirty fields, and each
    counts its parameters once).

    Used only for lower bounds: every per-token term (KV cache, activations) is left
    out, and the count is the label's number, below any real model of that size.
    """
    count = parameters(label)
    if count is None or not MIN_BILLIONS * 1e9 <= count <= MAX_BILLIONS * 1e9:  # also refuses inf (400 digits)
        return None
    return Architecture(f"{label} (size only)", 1, 1, 1, 1, 0, 0, size_only=int(count))
