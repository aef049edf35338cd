"""The catalogue's records: GPUs and models, as their files hold them.

Two content kinds (ridgepoint.content.kinds), one file each under content/catalogue/gpus/ and
models/ (kernel and engine profiles and calibration sets are
ridgepoint.content.calibration_records), built generically from their schemas like every
other kind (ridgepoint.content.records), so each field here is a schema property of the same
name. Figures stay as written ("3.35
TB/s"); ridgepoint.catalogue.units converts them to base units for the pages and for the
sims' data module.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path


@dataclass(frozen=True)
class Citation:
    """Where figures come from: a title, and a URL only where it is certain."""

    title: str
    url: str | None = None


@dataclass(frozen=True)
class Figure:
    """A quantity as written ("989 TFLOP/s", "80 GB", "3.35 TB/s"), the name of one of the
    file's sources, and the row or field of that source it comes from."""

    value: str
    source: str
    row: str


@dataclass(frozen=True)
class Count:
    """A whole number (of GPUs), with its source and row."""

    value: int
    source: str
    row: str


@dataclass(frozen=True)
class Fp4Figure:
    """A 4-bit rate: a Figure, and which FP4 it is quoted in where the source says."""

    value: str
    source: str
    row: str
    variant: str | None = None  # nvfp4 | mxfp4


@dataclass(frozen=True)
class DenseRates:
    """The dense tensor-core rate per precision; a precision the GPU lacks is None."""

    bf16: Figure
    fp8: Figure | None = None
    fp6: Figure | None = None
    fp4: Fp4Figure | None = None


@dataclass(frozen=True)
class Memory:
    capacity: Figure
    bandwidth: Figure


@dataclass(frozen=True)
class ScaleUp:
    """The fabric between the GPUs of one node."""

    link: str
    topology: str  # switch | mesh (one link to each peer)
    bandwidth_per_direction: Figure  # per GPU, all its links
    gpus: Count  # the size of the domain


@dataclass(frozen=True)
class HostLink:
    link: str
    bandwidth_per_direction: Figure


@dataclass(frozen=True)
class ScaleOut:
    bandwidth_per_direction: Figure


@dataclass(frozen=True)
class Price:
    """An on-demand list price per GPU-hour as written ("3.20 USD/h"), its source, row and the
    date it was read; or, where no cited price was found, why (`missing`)."""

    read: date
    per_gpu_hour: str | None = None
    source: str | None = None
    row: str | None = None
    missing: str | None = None


@dataclass(frozen=True)
class Gpu:
    """content/catalogue/gpus/<slug>.yaml."""

    slug: str
    name: str
    sources: dict[str, Citation]
    dense_flops: DenseRates
    memory: Memory
    scale_up: ScaleUp
    kernels: str  # the key of its kernel profile
    announced: bool | None = None  # announced, not shipping: the figures are the announcement's

    host_link: HostLink | None = None
    scale_out: ScaleOut | None = None
    price: Price | None = None
    source: Path | None = None


@dataclass(frozen=True)
class ParamCounts:
    """The publisher's own parameter counts, as written ("671B"), and where they are stated."""

    title: str
    params_total: str
    url: str | None = None
    params_active: str | None = None


@dataclass(frozen=True)
class QuantizationArgs:
    """compressed-tensors: one tensor class's format in a quantization group, as there."""

    num_bits: int | None = None
    type: str | None = None  # int | float
    strategy: str | None = None
    group_size: int | None = None
    symmetric: bool | None = None
    dynamic: bool | None = None


@dataclass(frozen=True)
class QuantizationGroup:
    """compressed-tensors: the modules a group covers and their formats."""

    targets: tuple[str, ...]
    weights: QuantizationArgs | None = None
    input_activations: QuantizationArgs | None = None
    output_activations: QuantizationArgs | None = None


@dataclass(frozen=True)
class Quantization:
    """config.json's quantization_config, its fields as there."""

    quant_method: str
    fmt: str | None = None
    activation_scheme: str | None = None
    weight_block_size: tuple[int, ...] | None = None
    modules_to_not_convert: tuple[str, ...] | None = None
    scale_fmt: str | None = None
    config_groups: dict[str, QuantizationGroup] | None = None  # compressed-tensors
    format: str | None = None
    ignore: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ModelConfig:
    """The fields of a model's config.json the physics reads, named and valued as there."""

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    vocab_size: int
    intermediate_size: int | None = None
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    attn_output_gate: bool | None = None
    tie_word_embeddings: bool | None = None
    attention_bias: bool | None = None
    max_position_embeddings: int | None = None
    torch_dtype: str | None = None
    expert_dtype: str | None = None
    num_experts: int | None = None
    num_local_experts: int | None = None
    n_routed_experts: int | None = None
    num_experts_per_tok: int | None = None
    top_k_experts: int | None = None
    moe_intermediate_size: int | None = None
    n_shared_experts: int | None = None
    shared_expert_intermediate_size: int | None = None
    shared_intermediate_size: int | None = None
    enable_moe_block: bool | None = None
    use_double_wide_mlp: bool | None = None
    first_k_dense_replace: int | None = None
    moe_layer_freq: int | None = None
    decoder_sparse_step: int | None = None
    mlp_only_layers: tuple[int, ...] | None = None
    interleave_moe_layer_step: int | None = None
    intermediate_size_mlp: int | None = None
    mlp_layer_types: tuple[str, ...] | None = None
    num_hash_layers: int | None = None
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None
    o_lora_rank: int | None = None
    o_groups: int | None = None
    compress_ratios: tuple[int, ...] | None = None
    hc_mult: int | None = None
    index_n_heads: int | None = None
    index_head_dim: int | None = None
    index_topk: int | None = None
    index_topk_freq: int | None = None
    index_skip_topk_offset: int | None = None
    indexer_types: tuple[str, ...] | None = None
    sliding_window: int | None = None
    attention_chunk_size: int | None = None
    num_global_key_value_heads: int | None = None
    global_head_dim: int | None = None
    attention_k_eq_v: bool | None = None
    num_kv_shared_layers: int | None = None
    hidden_size_per_layer_input: int | None = None
    vocab_size_per_layer_input: int | None = None
    layer_types: tuple[str, ...] | None = None
    linear_num_key_heads: int | None = None
    linear_num_value_heads: int | None = None
    linear_key_head_dim: int | None = None
    linear_value_head_dim: int | None = None
    linear_conv_kernel_dim: int | None = None
    mamba_ssm_dtype: str | None = None
    attn_type_list: tuple[int, ...] | None = None
    quantization_config: Quantization | None = None


@dataclass(frozen=True)
class LanguageModel:
    """content/catalogue/models/<slug>.yaml."""

    slug: str
    name: str
    config_json: Citation  # the config.json the fields under `config` come from
    config: ModelConfig
    published: ParamCounts | None = None
    source: Path | None = None
