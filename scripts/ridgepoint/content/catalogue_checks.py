"""What a schema cannot say about a catalogue file: the rules between its fields and files.

A GPU figure must name one of the file's sources; a GPU with a scale-up domain needs its
collectives, measured or assumed from a measured GPU; a model's attention and mixture-of-
experts fields must describe one consistent shape (all of the latent-attention fields or
none, no more experts per token than experts, one entry of layer_types per layer...); a
calibration point must name a GPU and model of the catalogue, the inputs its kind needs and
a band or the reason it has none. These are the catalogue kinds' rules (ridgepoint.content.kinds,
ridgepoint.content.checks.Check); like every rule they read the raw data defensively, since a file
may also have failed its schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ridgepoint.base.errors import ContentError
from ridgepoint.content.checks import CrossFile, Documents
from ridgepoint.content.yamldoc import Document

KEY = "catalogue.schema.json#/$defs/key"  # what a catalogue file's name must be

FIGURE_PLACES = (
    ("dense_flops", "bf16"), ("dense_flops", "fp8"), ("dense_flops", "fp4"),
    ("memory", "capacity"), ("memory", "bandwidth"),
    ("scale_up", "bandwidth_per_direction"), ("scale_up", "gpus"),
    ("host_link", "bandwidth_per_direction"), ("scale_out", "bandwidth_per_direction"),
)
EXPERT_COUNTS = ("num_experts", "num_local_experts", "n_routed_experts")
MOE_ONLY = ("num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
            "first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers")
LATENT = ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")


def _mapping(data: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _int(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- GPUs -------------------------------------------------------------------------------


def gpus(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """Figures name the file's sources; collectives are measured or assumed, consistently."""
    measured = {key for key, doc in documents.items()
                if _mapping(doc.data, "collectives").get("all_reduce")}
    for document in documents.values():
        yield from _sources_named(document)
        yield from _collectives(document, documents, measured)


def _sources_named(document: Document) -> Iterator[ContentError]:
    sources = _mapping(document.data, "sources")
    named = [([section, name, "source"], _mapping(document.data, section, name).get("source"))
             for section, name in FIGURE_PLACES]
    named.append((["collectives", "source"], _mapping(document.data, "collectives").get("source")))
    for location, name in named:
        if isinstance(name, str) and name not in sources:
            known = ", ".join(sources) or "none yet"
            yield document.error(location, f"{name!r} is not one of this file's sources",
                                 f"a name under sources: {known}")


def _collectives(
    document: Document, gpus: dict[str, Document], measured: set[str]
) -> Iterator[ContentError]:
    data = document.data if isinstance(document.data, dict) else {}
    domain = _int(_mapping(data, "scale_up", "gpus"), "value")
    collectives = data.get("collectives")
    how = "measured times (source, all_reduce) or an assumed GPU (like, assumption)"
    if not isinstance(collectives, dict):
        if collectives is None and domain is not None and domain > 1:
            yield document.error(["collectives"], f"missing for a domain of {domain} GPUs", how,
                                 at=[])
        return
    given = {"measured": any(k in collectives for k in ("source", "all_reduce")),
             "assumed": any(k in collectives for k in ("like", "assumption"))}
    if given["measured"] and given["assumed"]:
        yield document.error(["collectives"], "gives both measured times and an assumed GPU",
                             "one of the two")
        return
    needed = ("source", "all_reduce") if given["measured"] else ("like", "assumption")
    for key in needed:
        if key not in collectives:
            yield document.error(["collectives", key], "missing", how, at=["collectives"])
    like = collectives.get("like")
    if isinstance(like, str) and like not in measured:
        known = ", ".join(sorted(measured)) or "none"
        message = (f"{like!r} is not a GPU of the catalogue" if like not in gpus
                   else f"{like!r} has no measured all-reduce times")
        yield document.error(["collectives", "like"], message,
                             f"a GPU with measured times: {known}")
    yield from _measured_points(document, collectives.get("all_reduce"), domain)


def _measured_points(document: Document, points: Any, domain: int | None) -> Iterator[ContentError]:
    if not isinstance(points, list):
        return
    sizes: dict[int, set[Any]] = {}
    for index, point in enumerate(points):
        gpus = _int(point, "gpus") if isinstance(point, dict) else None
        if gpus is None:
            continue
        sizes.setdefault(gpus, set()).add(point.get("bytes"))
        if domain is not None and gpus > domain:
            yield document.error(["collectives", "all_reduce", index, "gpus"],
                                 f"{gpus} GPUs is more than the scale-up domain of {domain}",
                                 f"at most scale_up.gpus ({domain})")
    for gpus, measured in sorted(sizes.items()):
        if len(measured) < 2:
            yield document.error(["collectives", "all_reduce"],
                                 f"has one message size at {gpus} GPUs; a fit needs two",
                                 "at least two message sizes per number of GPUs")


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
    per_token = _int(config, "num_experts_per_tok")
    if "num_experts_per_tok" not in config:
        yield _missing(document, "num_experts_per_tok", "a mixture of experts routes each "
                       "token to some of them", "the experts each token goes to")
    elif per_token is not None and experts is not None and per_token > experts:
        yield document.error(["config", "num_experts_per_tok"],
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
    if given or "q_lora_rank" in config:
        for key in LATENT:
            if key not in config:
                yield _missing(document, key, f"latent attention is half described "
                               f"({', '.join(given) or 'q_lora_rank'} given)",
                               "all of " + ", ".join(LATENT))
    heads = _int(config, "num_attention_heads")
    kv_heads = _int(config, "num_key_value_heads")
    if heads and kv_heads and heads % kv_heads:
        yield document.error(["config", "num_key_value_heads"],
                             f"{kv_heads} does not divide the {heads} query heads",
                             "a number of KV heads that divides num_attention_heads")


def _layers(document: Document, config: dict[str, Any]) -> Iterator[ContentError]:
    kinds = config.get("layer_types")
    layers = _int(config, "num_hidden_layers")
    if not isinstance(kinds, list):
        return
    if layers is not None and len(kinds) != layers:
        yield document.error(["config", "layer_types"],
                             f"lists {len(kinds)} layers, not the model's {layers}",
                             f"one entry per layer ({layers})")
    if "sliding_attention" in kinds and "sliding_window" not in config:
        yield _missing(document, "sliding_window", "layer_types has sliding layers",
                       "the window in tokens")


# -- calibration ------------------------------------------------------------------------

CASE_FIELDS = {
    "linear": ("tokens", "k", "n"),
    "attention": ("heads", "head_dim", "tokens"),
    "all_reduce": ("gpus", "bytes"),
    "layer": ("model", "tokens", "tp"),
    "decode": ("model", "tp", "batch", "context"),
    "prefill": ("model", "tp", "batch", "tokens"),
    "request": ("model", "tp", "batch", "tokens", "output"),
}


def calibration(documents: Documents, other: CrossFile) -> Iterator[ContentError]:
    """Point keys are unique across the sets; each point names a catalogue GPU (and model),
    gives one measured figure, a band or why it has none, and the inputs its kind needs."""
    seen: dict[str, str] = {}
    for document in documents.values():
        points = document.data.get("points") if isinstance(document.data, dict) else None
        for index, point in enumerate(points if isinstance(points, list) else ()):
            if isinstance(point, dict):
                yield from _point(document, ["points", index], point, seen, other)


def _one_of(document: Document, place: list[Any], point: dict[str, Any], fields: tuple[str, str],
            expected: str) -> Iterator[ContentError]:
    given = [field for field in fields if field in point]
    if len(given) != 1:
        message = "missing" if not given else f"given with {fields[1]}"
        yield document.error([*place, fields[0]], message, expected, at=place)


def _point(document: Document, place: list[Any], point: dict[str, Any], seen: dict[str, str],
           other: CrossFile) -> Iterator[ContentError]:
    key = point.get("key")
    if isinstance(key, str):
        if key in seen:
            yield document.error([*place, "key"], f"{key!r} is already used by {seen[key]}",
                                 "a key no other calibration point has")
        seen.setdefault(key, f"{document.path}, points[{place[-1]}]")
    gpu = point.get("gpu")
    if isinstance(gpu, str) and gpu not in other.documents.get("gpus", {}):
        yield document.error([*place, "gpu"], f"{gpu!r} is not known",
                             f"a GPU key of {other.folders.get('gpus', 'the catalogue')}/")
    yield from _one_of(document, place, point, ("measured_ms", "measured_tflops"),
                       "one measured figure: measured_ms, or measured_tflops for a rate")
    yield from _one_of(document, place, point, ("band", "unbanded"),
                       "a band, or unbanded: why the point is held to none")
    case, kind = point.get("case"), point.get("kind")
    if not isinstance(case, dict) or kind not in CASE_FIELDS:
        return
    for field in CASE_FIELDS[kind]:
        if field not in case:
            yield document.error([*place, "case", field], f"missing for a {kind} point",
                                 "the inputs: " + ", ".join(CASE_FIELDS[kind]),
                                 at=[*place, "case"])
    model = case.get("model")
    if isinstance(model, str) and model not in other.documents.get("models", {}):
        yield document.error([*place, "case", "model"], f"{model!r} is not known",
                             f"a model key of {other.folders.get('models', 'the catalogue')}/")
