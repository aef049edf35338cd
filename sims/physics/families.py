"""How each model family's config.json names its layers: which are MoE, which attention kind
each has (sims.physics.kinds), how wide the MLP beside the experts is, and the checkpoint's
own number formats. Model.from_config (sims.physics.shapes) reads a config through these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sims.physics.kinds import CHUNKED, COMPRESSED, FULL, LAYER_TYPES, SLIDING, SPARSE, LayerKind
from sims.physics.precision import Precision

EXPERT_COUNTS = ("num_experts", "num_local_experts", "n_routed_experts")
EXPERTS_PER_TOKEN = ("num_experts_per_tok", "top_k_experts")
STATE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}  # mamba_ssm_dtype
LLAMA4_NOPE_INTERVAL = 4  # HF Llama4TextConfig: every 4th layer global, without RoPE
CSA_RATIO = 4  # DeepSeek V4 (HF DeepseekV4Config): ratio-4 layers pick entries by an indexer


def is_moe(config: Mapping[str, Any], experts: int, index: int) -> bool:
    """Whether layer `index` (from 0) routes to experts, as the families' own code decides:
    GLM's mlp_layer_types, DeepSeek's first_k_dense_replace and moe_layer_freq, Qwen's
    mlp_only_layers and decoder_sparse_step, Llama 4's moe_layers or
    interleave_moe_layer_step (HF's default: layers step - 1, 2 step - 1, ...)."""
    if not experts:
        return False
    if "mlp_layer_types" in config:  # GLM-5.2 lists each layer's MLP: "dense" or "sparse"
        return config["mlp_layer_types"][index] == "sparse"
    if index < config.get("first_k_dense_replace", 0):
        return False
    if "moe_layers" in config:
        return index in config["moe_layers"]
    step = config.get("interleave_moe_layer_step", 1)
    if index % step != step - 1:
        return False
    if index in config.get("mlp_only_layers", ()) or index % config.get("moe_layer_freq", 1):
        return False
    return (index + 1) % config.get("decoder_sparse_step", 1) == 0


def shared_ffn(config: Mapping[str, Any], expert_ffn: int) -> int:
    """The width of what every token of an MoE layer runs besides its routed experts:
    DeepSeek's n_shared_experts of the experts' width, Qwen's shared expert, Llama 4's (one,
    of intermediate_size), or Gemma 4's dense MLP beside its experts (enable_moe_block)."""
    if "shared_expert_intermediate_size" in config:
        return config["shared_expert_intermediate_size"]
    if "shared_intermediate_size" in config:  # MiniMax
        return config["shared_intermediate_size"]
    if "interleave_moe_layer_step" in config or config.get("enable_moe_block"):
        return config["intermediate_size"]
    return config.get("n_shared_experts", 0) * expert_ffn


def layer_kinds(config: Mapping[str, Any], moe: list[bool]) -> tuple[LayerKind, ...]:
    """Each layer's kind, from the family's own fields (the module docstring names them)."""
    layers = len(moe)
    window = config.get("sliding_window") or 0
    if "compress_ratios" in config:  # DeepSeek V4: a list with the MTP layer's ratio last
        ratios = config["compress_ratios"][:layers]
        topk = config.get("index_topk", 0)
        return tuple(LayerKind(window, is_moe, COMPRESSED if ratio else SLIDING, 0, 0, ratio,
                               topk if ratio == CSA_RATIO else 0)
                     for ratio, is_moe in zip(ratios, moe, strict=True))
    if "index_topk" in config:  # DeepSeek sparse attention on every layer
        owns = [kind != "shared" for kind in config.get("indexer_types") or ["full"] * layers]
        return tuple(LayerKind(0, is_moe, SPARSE, topk=config["index_topk"], indexer=own)
                     for is_moe, own in zip(moe, owns, strict=True))
    chunk = config.get("attention_chunk_size") or 0
    if chunk and not config.get("layer_types"):  # Llama 4 as its config.json has it
        rope = config.get("no_rope_layers") or [
            int((index + 1) % LLAMA4_NOPE_INTERVAL != 0) for index in range(layers)]
        return tuple(LayerKind(chunk, is_moe, CHUNKED) if uses_rope else LayerKind(0, is_moe)
                     for uses_rope, is_moe in zip(rope, moe, strict=True))
    interval = config.get("full_attention_interval")
    types = config.get("layer_types") or (
        ["full_attention" if (index + 1) % interval == 0 else "linear_attention"
         for index in range(layers)] if interval and config.get("linear_num_value_heads")
        else ["sliding_attention" if window else "full_attention"] * layers)
    global_dim = config.get("global_head_dim", 0)
    global_kv = (config.get("num_global_key_value_heads") or 0
                 if config.get("attention_k_eq_v") else 0)
    kinds = []
    for name, is_moe in zip(types, moe, strict=True):
        kind = LAYER_TYPES[name]
        if kind == SLIDING:
            kinds.append(LayerKind(window, is_moe, SLIDING))
        elif kind == CHUNKED:
            kinds.append(LayerKind(chunk, is_moe, CHUNKED))
        elif kind == FULL:
            kinds.append(LayerKind(0, is_moe, FULL, global_dim, global_kv))
        else:
            kinds.append(LayerKind(0, is_moe, kind))
    return tuple(kinds)


def native(config: Mapping[str, Any]) -> Precision:
    """The checkpoint's formats: its quantization_config's, with DeepSeek V4's experts in the
    format its expert_dtype names (FP4 beside FP8 weights)."""
    native = native_precision(config.get("quantization_config"))
    experts = config.get("expert_dtype")
    return native._replace(experts=experts) if experts else native


def native_precision(quantization: Mapping[str, Any] | None) -> Precision:
    """The checkpoint's formats from its quantization_config: FP8 (DeepSeek's blocks),
    MXFP4 experts (gpt-oss), integer weights (AWQ, GPTQ: every linear layer; compressed-tensors
    as Kimi K2.5 has it: its config groups' weights, with attention, shared experts and dense
    MLPs left in BF16 when its ignore list names them). ValueError for what is not one."""
    if not quantization:
        return Precision()
    method = quantization.get("quant_method")
    if method == "fp8":
        return Precision("fp8", "fp8")
    if method == "mxfp4":
        return Precision("bf16", "fp4")
    if method in ("awq", "gptq"):
        fmt = _integer(quantization.get("bits"), quantization.get("group_size", 128))
        return Precision(fmt, fmt)
    if method == "compressed-tensors":
        groups = list((quantization.get("config_groups") or {}).values())
        weights = [group.get("weights") or {} for group in groups]
        if len(weights) != 1 or any(group.get("input_activations") for group in groups):
            raise ValueError("compressed-tensors: only one group of weight-only integers "
                             "is modelled")
        spec = weights[0]
        if spec.get("type") != "int":
            raise ValueError(f"compressed-tensors: weights of type {spec.get('type')!r} are "
                             "not modelled (only int)")
        fmt = _integer(spec.get("num_bits"), spec.get("group_size") or 128)
        ignored = " ".join(map(str, quantization.get("ignore") or ()))
        return Precision("bf16" if "self_attn" in ignored else fmt, fmt)
    raise ValueError(f"quant_method {method!r} is not modelled")


def _integer(bits: Any, group: Any) -> str:
    """The integer weight format (sims.physics.precision) of `bits` in groups of `group`."""
    if bits == 8:
        return "int8"
    if bits == 4 and group in (32, 128):
        return "int4g32" if group == 32 else "int4"
    raise ValueError(f"{bits}-bit integer weights in groups of {group} are not modelled "
                     "(8 bits, or 4 bits in groups of 32 or 128)")
