"""What a schema cannot say about a GPU or model file: the rules between its fields and files.

A GPU figure must name one of the file's sources and its kernel profile must exist; a
profile gives its own constants or names another's (with the reason); a model's attention
and mixture-of-experts fields must describe one consistent shape (all of the latent-attention
fields or none, no more experts per token than experts, one entry of layer_types per
layer...). A calibration set's rules are ridgepoint.content.calibration_checks'. These are
the catalogue kinds' rules (ridgepoint.content.kinds, ridgepoint.content.checks.Check); like
every rule they read the raw data defensively, since a file may also have failed its schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ridgepoint.base.errors import ContentError
from ridgepoint.content.checks import CrossFile, Documents
from ridgepoint.content.yamldoc import Document

KEY = "catalogue.schema.json#/$defs/key"  # what a catalogue file's name must be

FIGURE_PLACES = (
    ("dense_flops", "bf16"), ("dense_flops", "fp8"), ("dense_flops", "fp6"),
    ("dense_flops", "fp4"),
    ("memory", "capacity"), ("memory", "bandwidth"),
    ("scale_up", "bandwidth_per_direction"), ("scale_up", "gpus"),
    ("host_link", "bandwidth_per_direction"), ("scale_out", "bandwidth_per_direction"),
)
EXPERT_COUNTS = ("num_experts", "num_local_experts", "n_routed_experts")
PER_TOKEN = ("num_experts_per_tok", "top_k_experts")  # Gemma 4 names the router's k so
MOE_ONLY = ("num_experts_per_tok", "top_k_experts", "moe_intermediate_size", "n_shared_experts",
            "first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers",
            "shared_expert_intermediate_size", "shared_intermediate_size", "enable_moe_block",
            "interleave_moe_layer_step", "intermediate_size_mlp", "mlp_layer_types",
            "num_hash_layers")
LATENT = ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
# Any of these makes a model latent (MLA); q_lora_rank and qk_rope_head_dim alone do not:
# DeepSeek-V4 compresses its queries and ropes part of its one shared KV head without a latent.
LATENT_MARKS = ("kv_lora_rank", "qk_nope_head_dim", "v_head_dim")
LINEAR = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
          "linear_value_head_dim")
PER_LAYER = ("layer_types", "mlp_layer_types", "indexer_types", "attn_type_list")


def _mapping(data: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _int(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- GPUs -------------------------------------------------------------------------------


def gpus(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """Figures name the file's sources; the kernel profile named is in the catalogue."""
    profiles = other.documents.get("kernels", {})
    for document in documents.values():
        yield from _sources_named(document, (*FIGURE_PLACES, ("price",)))
        kernels = document.data.get("kernels") if isinstance(document.data, dict) else None
        if isinstance(kernels, str) and kernels not in profiles:
            known = ", ".join(sorted(profiles)) or "none yet"
            yield document.error(["kernels"], f"{kernels!r} is not a kernel profile of the "
                                 "catalogue", f"a key of {other.folders.get('kernels')}/: {known}")


def _sources_named(document: Document, places: tuple[tuple[str, ...], ...] = FIGURE_PLACES
                   ) -> Iterator[ContentError]:
    sources = _mapping(document.data, "sources")
    named = [([*place, "source"], _mapping(document.data, *place).get("source"))
             for place in places]
    for location, name in named:
        if isinstance(name, str) and name not in sources:
            known = ", ".join(sources) or "none yet"
            yield document.error(location, f"{name!r} is not one of this file's sources",
                                 f"a name under sources: {known}")


# -- serving engines ----------------------------------------------------------------------

ENGINE_SETTINGS = (("admission",), ("token_budget",), ("max_batch",), ("cuda_graphs",),
                   ("all_reduce",), ("expert_exchange",))


def engines(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """Each setting names one of the file's sources; each fitted deployment names a
    catalogue model, once per number of GPUs."""
    models = other.documents.get("models", {})
    for document in documents.values():
        yield from _sources_named(document, ENGINE_SETTINGS)
        budgets = _mapping(document.data, "deployments").get("token_budgets")
        seen: set[tuple[Any, Any]] = set()
        for index, budget in enumerate(budgets if isinstance(budgets, list) else []):
            place = ["deployments", "token_budgets", index]
            budget = _mapping(budget)
            model, gpus = budget.get("model"), budget.get("gpus")
            if isinstance(model, str) and model not in models:
                folder = other.folders.get("models", "the catalogue")
                yield document.error([*place, "model"], f"{model!r} is not known",
                                     f"a model key of {folder}/")
            if (model, gpus) in seen:
                yield document.error(place, f"{model} on {gpus} GPU{'s' if gpus != 1 else ''} is "
                                            "given twice",
                                     "one budget per model and number of GPUs")
            seen.add((model, gpus))


# -- kernel profiles ----------------------------------------------------------------------

PROFILE_SECTIONS = ("overlap_exponent", "gemm", "prefill_attention", "decode_attention", "moe",
                    "elementwise", "all_reduce")


def kernels(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """A profile gives its own constants (every section) or takes another's (like and
    assumption), not both; the one it takes gives its own. Either may state the errors its
    GPUs' measurements show (accuracy)."""
    own = {key for key, doc in documents.items() if "like" not in _mapping(doc.data)}
    for document in documents.values():
        if not isinstance(document.data, dict):
            continue  # the schema reports a file that is not a mapping
        data = document.data
        given = [section for section in PROFILE_SECTIONS if section in data]
        if "like" in data or "assumption" in data:
            for key in ("like", "assumption"):
                if key not in data:
                    yield document.error([key], "missing", "like and assumption together")
            if given:
                yield document.error([given[0]], "given with like",
                                     "its own constants or like another profile, not both")
            like = data.get("like")
            if isinstance(like, str) and like not in own:
                known = ", ".join(sorted(own)) or "none"
                yield document.error(["like"], f"{like!r} is not a profile with its own "
                                     "constants", f"one of: {known}")
            continue
        for section in PROFILE_SECTIONS:
            if section not in data:
                yield document.error([section], "missing", "every section, or like and "
                                     "assumption", at=[])


# -- models -----------------------------------------------------------------------------


def models(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """The attention and mixture-of-experts fields describe one consistent shape."""
    for document in documents.values():
        config = _mapping(document.data, "config")
        if config:
            yield from _experts(document, config)
            yield from _latent(document, config)
            yield from _layers(document, config)


def _missing(document: Document, key: str, why: str, expected: str) -> ContentError:
    return document.error(["config", key], f"missing: {why}", expected, at=["config"])


def _experts(document: Document, config: dict[str, Any]) -> Iterator[ContentError]:
    counts = [key for key in EXPERT_COUNTS if key in config]
    for key in counts[1:]:
        yield document.error(["config", key], f"counts the experts again, after {counts[0]}",
                             "one of num_experts, num_local_experts, n_routed_experts")
    experts = _int(config, counts[0]) if counts else None
    if not counts:
        for key in MOE_ONLY:
            if key in config:
                yield document.error(["config", key], "is given but the model has no experts",
                                     "num_experts (or num_local_experts, n_routed_experts)")
        if "intermediate_size" not in config:
            yield _missing(document, "intermediate_size", "a dense model needs its MLP width",
                           "the MLP's intermediate size")
        return
    given = [key for key in PER_TOKEN if key in config]
    per_token = _int(config, given[0]) if given else None
    if not given:
        yield _missing(document, "num_experts_per_tok", "a mixture of experts routes each "
                       "token to some of them", "the experts each token goes to")
    elif per_token is not None and experts is not None and per_token > experts:
        yield document.error(["config", given[0]],
                             f"{per_token} is more than the {experts} experts",
                             f"at most {counts[0]} ({experts})")
    if "moe_intermediate_size" not in config and "intermediate_size" not in config:
        yield _missing(document, "moe_intermediate_size", "the experts need their width",
                       "moe_intermediate_size (or intermediate_size, as Mixtral writes it)")
    dense = _int(config, "first_k_dense_replace") or 0
    layers = _int(config, "num_hidden_layers")
    if layers is not None and dense >= layers:
        yield document.error(["config", "first_k_dense_replace"],
                             f"{dense} dense layers leave no expert layer of {layers}",
                             f"fewer than num_hidden_layers ({layers})")
    has_dense = dense > 0 or bool(config.get("mlp_only_layers")) or any(
        (_int(config, key) or 1) > 1 for key in ("interleave_moe_layer_step",)) or any(
        (_int(config, key) or 1) > 1 for key in ("moe_layer_freq", "decoder_sparse_step"))
    if has_dense and "intermediate_size" not in config:
        yield _missing(document, "intermediate_size", "the dense layers need their MLP width",
                       "the dense MLP's intermediate size")
    for index, layer in enumerate(config.get("mlp_only_layers") or ()):
        if isinstance(layer, int) and layers is not None and layer >= layers:
            yield document.error(["config", "mlp_only_layers", index],
                                 f"layer {layer} is not among the {layers} layers",
                                 f"a layer index from 0 to {layers - 1}")


def _latent(document: Document, config: dict[str, Any]) -> Iterator[ContentError]:
    given = [key for key in LATENT if key in config]
    if any(key in config for key in LATENT_MARKS):
        for key in LATENT:
            if key not in config:
                yield _missing(document, key, f"latent attention is half described "
                               f"({', '.join(given)} given)",
                               "all of " + ", ".join(LATENT))
    heads = _int(config, "num_attention_heads")
    kv_heads = _int(config, "num_key_value_heads")
    if heads and kv_heads and heads % kv_heads:
        yield document.error(["config", "num_key_value_heads"],
                             f"{kv_heads} does not divide the {heads} query heads",
                             "a number of KV heads that divides num_attention_heads")


def _layers(document: Document, config: dict[str, Any]) -> Iterator[ContentError]:
    layers = _int(config, "num_hidden_layers")
    for key in PER_LAYER:
        listed = config.get(key)
        if isinstance(listed, list) and layers is not None and len(listed) != layers:
            yield document.error(["config", key],
                                 f"lists {len(listed)} layers, not the model's {layers}",
                                 f"one entry per layer ({layers})")
    ratios = config.get("compress_ratios")
    if isinstance(ratios, list) and layers is not None and len(ratios) < layers:
        yield document.error(["config", "compress_ratios"],
                             f"lists {len(ratios)} layers, fewer than the model's {layers}",
                             f"one entry per layer ({layers}), then any for the "
                             "multi-token-prediction layers")
    kinds = config.get("layer_types")
    if not isinstance(kinds, list):
        return
    if "linear_attention" in kinds:
        for key in LINEAR:
            if key not in config:
                yield _missing(document, key, "layer_types has linear_attention layers",
                               "all of " + ", ".join(LINEAR))
    if "sliding_attention" in kinds and "sliding_window" not in config:
        yield _missing(document, "sliding_window", "layer_types has sliding layers",
                       "the window in tokens")


# -- calibration ------------------------------------------------------------------------
