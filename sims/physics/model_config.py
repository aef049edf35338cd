"""A model from a Hugging Face config.json the reader pastes: parsed, checked, and shaped.

Every sim's Model control offers "Paste a config.json" (and `python -m sims <sim>
--model-config FILE` does the same natively). The text is read here, in the same Python
the page runs, so the browser and the command line accept and refuse exactly the same
configs.

A config is read field by field, and every field falls in one of three sets:

- USED: what Model.from_config reads (sims.physics.shapes): widths, counts, layer kinds
  (sliding, chunked, linear, sparse, compressed) and their geometry, the checkpoint's
  quantization;
- IGNORED: fields that do not change what a step costs or what memory holds (token ids,
  rotary settings, dropout, generation defaults, how the router scores experts), and parts
  this site leaves out on purpose and says so (the multi-token-prediction module, a vision
  or audio tower);
- anything else is refused, by name: a field the physics does not know could change the
  model's cost (a new attention kind, a second width), and a silently wrong answer is worse
  than a clear "not supported".

A multimodal config nests its language model under `text_config` (Llama 4, Qwen3.5,
Gemma, Kimi K2.5); that part is the model the sims serve, and its fields win over the outer
ones. Errors are InputErrors on the `model_config` input, so the page shows them beside
the text box.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sims.kit.contract import InputError
from sims.physics.families import STATE_BYTES, native_precision
from sims.physics.kinds import LAYER_TYPES as KINDS_OF_LAYER_TYPES
from sims.physics.shapes import Model

INPUT = "model_config"  # the sims' input that carries the pasted text
CUSTOM = "custom"  # the Model choice that reads it
NESTED = ("text_config", "llm_config", "language_config")  # where a multimodal config keeps it

REQUIRED = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size")

# Counts the shape reads (positive integers), and the rest of what it reads.
COUNTS = frozenset({
    "hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
    "intermediate_size", "num_key_value_heads", "head_dim", "max_position_embeddings",
    "num_experts", "num_local_experts", "n_routed_experts", "num_experts_per_tok",
    "moe_intermediate_size", "moe_layer_freq", "decoder_sparse_step", "q_lora_rank",
    "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
    "top_k_experts", "intermediate_size_mlp", "interleave_moe_layer_step",
    "attention_chunk_size", "global_head_dim", "num_global_key_value_heads",
    "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
    "linear_value_head_dim", "linear_conv_kernel_dim", "full_attention_interval",
    "index_n_heads", "index_head_dim", "index_topk", "o_groups", "o_lora_rank", "hc_mult",
})
COUNTS_OR_ZERO = frozenset({"n_shared_experts", "first_k_dense_replace",
                            "shared_expert_intermediate_size", "shared_intermediate_size"})
# Switches the shape does not model turned on: refused unless off (0 or false).
MUST_BE_OFF = frozenset({
    "hidden_size_per_layer_input",  # Gemma's per-layer embeddings (its small models)
    "num_kv_shared_layers",  # Gemma's layers that reuse another layer's cache
    "use_double_wide_mlp",  # Gemma's doubled MLP in its shared-cache layers
})
USED = COUNTS | COUNTS_OR_ZERO | MUST_BE_OFF | frozenset({
    "attention_bias", "tie_word_embeddings", "sliding_window", "layer_types",
    "mlp_only_layers", "quantization_config", "torch_dtype", "dtype",
    "attn_output_gate", "attention_k_eq_v", "enable_moe_block", "mamba_ssm_dtype",
    "no_rope_layers", "moe_layers", "compress_ratios", "expert_dtype", "attn_type_list",
    "indexer_types", "mlp_layer_types",
})

IGNORED = frozenset({
    # identity, tooling, and the numbers of special tokens
    "_name_or_path", "architectures", "auto_map", "model_type", "transformers_version",
    "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id",
    "tokenizer_class", "id2label", "label2id", "problem_type", "prefix", "task_specific_params",
    # numerics that cost nothing to count: norms' epsilon, activation, initialisation
    "rms_norm_eps", "layer_norm_epsilon", "norm_eps", "hidden_act", "hidden_activation",
    "initializer_range", "attention_dropout", "hidden_dropout", "use_bfloat16",
    "pretraining_tp", "use_cache", "torchscript", "return_dict", "output_attentions",
    "output_hidden_states", "output_scores", "output_router_logits", "is_decoder",
    "is_encoder_decoder", "add_cross_attention", "cross_attention_hidden_size",
    "tie_encoder_decoder", "chunk_size_feed_forward", "pruned_heads", "tf_legacy_loss",
    "use_sliding_window", "max_window_layers", "swiglu_limit", "final_logit_softcapping",
    "mlp_bias",  # biases on the MLP: under 0.01% of the parameters, left out as the experts' are
    # rotary position embedding: where the positions go, not how much work there is
    "rope_theta", "rope_scaling", "rope_parameters", "rope_interleave", "partial_rotary_factor",
    "rotary_dim", "original_max_position_embeddings", "initial_context_length",
    # how the router scores and normalises (its matmul is counted from the expert count)
    "router_aux_loss_coef", "aux_loss_alpha", "seq_aux", "norm_topk_prob", "scoring_func",
    "topk_method", "n_group", "topk_group", "routed_scaling_factor", "router_jitter_noise",
    "ep_size", "use_routing_bias", "use_qk_norm", "qk_norm_type",
    "experts_per_token",  # gpt-oss's second name for num_experts_per_tok, which is read
    # generation defaults
    "temperature", "top_k", "top_p", "typical_p", "repetition_penalty", "length_penalty",
    "no_repeat_ngram_size", "encoder_no_repeat_ngram_size", "bad_words_ids", "num_beams",
    "num_beam_groups", "diversity_penalty", "do_sample", "early_stopping", "max_length",
    "min_length", "num_return_sequences", "forced_bos_token_id", "forced_eos_token_id",
    "remove_invalid_values", "exponential_decay_length_penalty", "suppress_tokens",
    "begin_suppress_tokens", "return_dict_in_generate", "finetuning_task",
    # left out on purpose: the multi-token-prediction module (a drafter, not the model)
    # and a vision or audio tower (the sims serve text)
    "num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules", "use_mtp",
    "mtp_transformer_layers", "mtp_use_dedicated_embeddings", "vision_config", "audio_config",
    "image_token_id", "image_token_index", "video_token_id", "video_token_index",
    "vision_start_token_id", "vision_end_token_id", "media_placeholder_token_id",
    "vision_feature_layer", "vision_feature_select_strategy", "multimodal_projector_bias",
    "projector_hidden_act", "image_seq_length", "boi_token_id", "eoi_token_id",
    "boa_token_id", "eoa_token_id", "eoa_token_index", "audio_token_id",
    "vision_soft_tokens_per_image", "use_unified_vision_chunk", "video_placeholder",
    "ignore_index",
    # the 2026 families' fields that change no cost: rotary settings of the compressed and
    # indexer branches, a sum of two read widths (GLM-5's qk_head_dim), hyper-connections'
    # numerics, hash routing (DeepSeek V4's first layers pick experts by token id: the same
    # work; its table is a buffer, not a weight), which tokens attend both ways (vision
    # ones), and the vocabulary of per-layer embeddings that are refused unless off
    "compress_rope_theta", "indexer_rope_interleave", "qk_head_dim", "hc_eps",
    "hc_sinkhorn_iters", "num_hash_layers", "use_bidirectional_attention",
    "vocab_size_per_layer_input",
    # GLM-5.2's indexer sharing as a rule (one layer in index_topk_freq runs its own, from
    # index_skip_topk_offset): read from its per-layer list, indexer_types, which a config
    # with the rule must give (_check_lists); the router's own format (a few megabytes), and
    # the indexer's reuse by the multi-token-prediction layer (left out with it)
    "index_topk_freq", "index_skip_topk_offset", "index_topk_pattern", "moe_router_dtype",
    "index_share_for_mtp_iteration",
})

LAYER_TYPES = tuple(KINDS_OF_LAYER_TYPES)  # what layer_types may name
QUANT_METHODS = ("fp8", "mxfp4", "awq", "gptq", "compressed-tensors")  # quant_method's names
LAYER_TYPE_FIELDS = {  # what a layer type's geometry is read from
    "sliding_attention": ("sliding_window",),
    "chunked_attention": ("attention_chunk_size",),
    "linear_attention": ("linear_num_key_heads", "linear_num_value_heads",
                         "linear_key_head_dim", "linear_value_head_dim",
                         "linear_conv_kernel_dim"),
}
COMPRESS_RATIOS = (0, 4, 128)  # DeepSeek V4: window only, sparse compressed, heavily compressed
SOFTMAX_ATTENTION = 1  # MiniMax's attn_type_list: 1 softmax attention, 0 lightning (linear)
MAX_TEXT = 200_000  # characters: a config.json is a few kilobytes; this is not one


def _error(message: str) -> InputError:
    return InputError(INPUT, message)


def read_config(text: str) -> dict[str, Any]:
    """The language model's fields of a pasted config.json, checked (see the module doc)."""
    if not text.strip():
        raise _error("paste a model's config.json: the text box is empty")
    if len(text) > MAX_TEXT:
        raise _error(f"is {len(text):,} characters; a config.json is a few thousand")
    try:
        outer = json.loads(text)
    except json.JSONDecodeError as error:
        raise _error(f"is not JSON: {error.msg} at line {error.lineno}, column "
                     f"{error.colno}") from None
    if not isinstance(outer, dict):
        raise _error("is not a config.json: its top level is not an object ({...})")
    config = language_fields(outer)
    check_config(config)
    return config


def language_fields(outer: Mapping[str, Any]) -> dict[str, Any]:
    """The outer config's fields with its nested language model's over them."""
    config = {key: value for key, value in outer.items() if key not in NESTED}
    for key in NESTED:
        inner = outer.get(key)
        if isinstance(inner, dict):
            config.update(inner)
    return config


def check_config(config: Mapping[str, Any]) -> None:
    """Refuse, naming the field, what is missing, of the wrong type, or not supported."""
    missing = [field for field in REQUIRED if field not in config]
    if missing:
        raise _error(f"lacks {_names(missing)}: a decoder's config.json names "
                     f"{_names(REQUIRED)}")
    unknown = sorted(field for field in config if field not in USED and field not in IGNORED)
    if unknown:
        raise _error(f"has {_names(unknown)}, which the sims do not model: "
                     f"{'it' if len(unknown) == 1 else 'each'} may change what the model "
                     "costs, so it is refused rather than ignored")
    for field in sorted(COUNTS & config.keys()):
        _count(field, config[field], allow_zero=False)
    for field in sorted(COUNTS_OR_ZERO & config.keys()):
        _count(field, config[field], allow_zero=True)
    window = config.get("sliding_window")
    if window is not None:
        _count("sliding_window", window, allow_zero=False)
    for field in sorted(MUST_BE_OFF & config.keys()):
        if config[field]:
            raise _error(f"field {field} is {json.dumps(config[field])}, which the sims do not "
                         "model (they model it off: 0 or false)")
    _check_layer_types(config)
    _check_lists(config)
    _check_quantization(config.get("quantization_config"))


def _count(field: str, value: Any, *, allow_zero: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if allow_zero else 1):
        least = "0 or more" if allow_zero else "1 or more"
        raise _error(f"field {field} is {json.dumps(value)}: it should be a whole number, "
                     f"{least}")


def _check_layer_types(config: Mapping[str, Any]) -> None:
    types = config.get("layer_types")
    if types is None:
        return
    layers = config["num_hidden_layers"]
    if not isinstance(types, list) or len(types) != layers:
        raise _error(f"field layer_types should list one kind per layer ({layers} of them)")
    unknown = sorted({kind for kind in types if kind not in LAYER_TYPES}, key=str)
    if unknown:
        raise _error(f"field layer_types names {_names(map(str, unknown))}, which the sims do "
                     f"not model (they know {_names(LAYER_TYPES)})")
    for kind, needed in LAYER_TYPE_FIELDS.items():
        missing = [field for field in needed if not config.get(field)]
        if kind in types and missing:
            raise _error(f"field layer_types has {kind} layers but {_names(missing)} "
                         f"{'is' if len(missing) == 1 else 'are'} not set")


def _check_lists(config: Mapping[str, Any]) -> None:
    """The per-layer lists and names of the 2026 families: DeepSeek V4's compress ratios,
    GLM-5.2's indexers and MLPs, MiniMax's attention types, the state's format of a linear
    layer."""
    layers = config["num_hidden_layers"]
    ratios = config.get("compress_ratios")
    if ratios is not None:
        if not isinstance(ratios, list) or len(ratios) < layers or any(
                ratio not in COMPRESS_RATIOS for ratio in ratios):
            raise _error(f"field compress_ratios should give each of the {layers} layers one "
                         f"of {_names(map(str, COMPRESS_RATIOS))}")
        if not config.get("sliding_window") or (4 in ratios and not config.get("index_topk")):
            raise _error("field compress_ratios needs sliding_window (and index_topk for "
                         "ratio 4)")
    if config.get("index_topk") and not (config.get("kv_lora_rank")
                                         or config.get("compress_ratios")):
        raise _error("field index_topk (sparse attention) needs latent attention "
                     "(kv_lora_rank) or compress_ratios: the sims price its indexer there only")
    if config.get("index_topk_freq", 1) != 1 and "indexer_types" not in config:
        raise _error("field index_topk_freq shares each indexer among layers, which the sims "
                     "read from indexer_types only: give indexer_types")
    for field, names in (("indexer_types", ("full", "shared")),
                         ("mlp_layer_types", ("dense", "sparse"))):
        value = config.get(field)
        if value is not None and (not isinstance(value, list) or len(value) != layers
                                  or any(name not in names for name in value)):
            raise _error(f"field {field} should give each of the {layers} layers one of "
                         f"{_names(names)}")
    kinds = config.get("attn_type_list")
    if kinds is not None and (not isinstance(kinds, list) or any(
            kind != SOFTMAX_ATTENTION for kind in kinds)):
        raise _error("field attn_type_list names lightning (linear) attention layers (0), "
                     "which the sims do not model (they model softmax attention, 1)")
    state = config.get("mamba_ssm_dtype", "float32")
    if state not in STATE_BYTES:
        raise _error(f"field mamba_ssm_dtype is {json.dumps(state)}; the sims know "
                     f"{_names(STATE_BYTES)}")
    expert_dtype = config.get("expert_dtype")
    if expert_dtype not in (None, "fp4", "fp8", "bf16"):
        raise _error(f"field expert_dtype is {json.dumps(expert_dtype)}; the sims know fp4, "
                     "fp8 and bf16")


def _check_quantization(quantization: Any) -> None:
    if quantization is None:
        return
    method = quantization.get("quant_method") if isinstance(quantization, dict) else None
    if method not in QUANT_METHODS:
        raise _error(f"field quantization_config.quant_method is {json.dumps(method)}, "
                     f"which the sims do not model (they know {_names(QUANT_METHODS)})")
    try:
        native_precision(quantization)
    except ValueError as error:
        raise _error(f"field quantization_config: {error}") from None


def _names(fields: Any) -> str:
    names = list(fields)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def model_from_text(text: str, name: str = "Your model") -> Model:
    """The Model a pasted config.json describes, or an InputError naming what is wrong."""
    config = read_config(text)
    try:
        return Model.from_config(CUSTOM, name, config)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as error:
        raise _error(f"could not be read as a model: {error}") from None
