"""A model from a Hugging Face config.json the reader pastes: parsed, checked, and shaped.

Every sim's Model control offers "Paste a config.json" (and `python -m sims <sim>
--model-config FILE` does the same natively). The text is read here, in the same Python
the page runs, so the browser and the command line accept and refuse exactly the same
configs.

A config is read field by field, and every field falls in one of three sets:

- USED: what Model.from_config reads (sims.physics.shapes): widths, counts, layer kinds,
  the checkpoint's quantization;
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
})
COUNTS_OR_ZERO = frozenset({"n_shared_experts", "first_k_dense_replace"})
USED = COUNTS | COUNTS_OR_ZERO | frozenset({
    "attention_bias", "tie_word_embeddings", "sliding_window", "layer_types",
    "mlp_only_layers", "quantization_config", "torch_dtype", "dtype",
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
})

LAYER_TYPES = ("full_attention", "sliding_attention")  # what layer_types may name
QUANT_METHODS = ("fp8", "mxfp4")  # what quantization_config.quant_method may name
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
    _check_layer_types(config)
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
    if "sliding_attention" in types and not config.get("sliding_window"):
        raise _error("field layer_types has sliding_attention layers but sliding_window "
                     "is not set")


def _check_quantization(quantization: Any) -> None:
    if quantization is None:
        return
    method = quantization.get("quant_method") if isinstance(quantization, dict) else None
    if method not in QUANT_METHODS:
        raise _error(f"field quantization_config.quant_method is {json.dumps(method)}, "
                     f"which the sims do not model (they know {_names(QUANT_METHODS)})")


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
