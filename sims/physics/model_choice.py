"""Every sim's Model control: a catalogue model, or "custom", the reader's own config.json.

A sim declares its model with `model_inputs(default)`: the `model` choice (the catalogue's
keys and CUSTOM) and the `model_config` text the reader pastes a Hugging Face config.json
into, shown only while the choice is CUSTOM. It then asks `model_for(model, model_config)`
for the Model, wherever it used to ask MODELS[model]. The text is read by
sims.physics.model_config, in the same Python natively and in the page's worker.

One pasted text gives one Model object (kept, `_custom`): the physics' caches are keyed by
the Model object (a frozen dataclass hashed by identity), so a sim rerun on the same paste
reuses them, and a different paste, being another object, never meets a result made for the
first. A cache keyed by `Model.key` would not tell two pastes apart (both are "custom"):
key by the object.

`read(text)` is what the page calls on a paste (the Text's `reader`): the config checked,
made compact for the URL (minified JSON of the fields the shape reads, which give the same
Model), and a line saying what was understood.
"""

from __future__ import annotations

import json
from functools import lru_cache

from sims.kit.contract import Choice, InputError, Text
from sims.physics import MODELS, Model
from sims.physics import model_config as config_text
from sims.physics.precision import LABELS

CUSTOM = config_text.CUSTOM
INPUT = config_text.INPUT
NAME = "Your model"  # what results call a pasted model
PASTES_KEPT = 8  # Models of recent pastes: a page's paste and a few before it


def model_inputs(default: str, label: str = "Model", help: str = "",
                 keys: tuple[str, ...] | None = None) -> tuple[Choice, Text]:
    """The `model` choice (`keys`, the catalogue's by default, then CUSTOM) and the
    `model_config` text it reads when CUSTOM is chosen."""
    choices = (*(tuple(MODELS) if keys is None else keys), CUSTOM)
    # The page's select names the CUSTOM option after the text it opens (shown_when).
    return (Choice("model", label, default, choices, help=help),
            Text(INPUT, "Paste a config.json", max_length=config_text.MAX_TEXT,
                 help="Paste a Hugging Face config.json: it is read here, in your browser, "
                      "and carried in the page's address.",
                 lines=8, shown_when=f"model={CUSTOM}", reader=read))


def model_for(model: str, model_config: str = "") -> Model:
    """The Model a sim's two inputs name: the catalogue's, or the pasted config's (an
    InputError naming model_config when it cannot be read)."""
    if model != CUSTOM:
        return MODELS[model]
    return _custom(model_config)


@lru_cache(maxsize=PASTES_KEPT)
def _custom(text: str) -> Model:
    return config_text.model_from_text(text, NAME)


def compact(text: str) -> str:
    """The config's text as the URL carries it: the fields the shape reads, minified
    (InputError as model_from_text gives when the text is not a config the sims take)."""
    config = config_text.read_config(text)
    kept = {key: config[key] for key in sorted(config) if key in config_text.USED}
    return json.dumps(kept, separators=(",", ":"), ensure_ascii=False)


def read(text: str) -> tuple[str, str]:
    """A paste as the `model_config` value, and the line that says what was read."""
    value = compact(text)
    return value, describe(model_for(CUSTOM, value))


def _size(count: float) -> str:
    return f"{count / 1e9:.1f}B" if count >= 1e9 else f"{count / 1e6:.0f}M"


def describe(model: Model) -> str:
    """One line: parameters, layers, widths, experts, KV per token, the checkpoint's format."""
    experts = (f", {model.experts} experts ({model.experts_per_token} per token)"
               if model.experts else "")
    attention = (f"latent attention (rank {model.kv_lora_rank})" if model.latent else
                 f"{model.heads} query and {model.kv_heads} KV heads")
    params = _size(model.params)
    if model.experts:
        params += f" ({_size(model.params_active)} active)"
    kv = model.kv_bytes_per_token() / 1024
    native = model.native
    formats = LABELS[native.weights] + (f" (experts {LABELS[native.experts]})"
                                        if model.experts and native.experts != native.weights
                                        else "")
    return (f"{model.name}: {params} parameters, {model.layers} layers, hidden size "
            f"{model.hidden}, {attention}{experts}; {kv:,.0f} KiB of BF16 KV cache per token; "
            f"weights {formats}, {model.weight_bytes() / 1e9:.1f} GB")


def refuse_unless(ok: bool, message: str) -> None:
    """An InputError on model_config when a sim cannot take the pasted model (a sim of
    mixtures of experts given a dense one)."""
    if not ok:
        raise InputError(INPUT, message)
