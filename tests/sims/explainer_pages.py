"""An explainer page as a reader gets it: `{{ sim:... }}` figures rendered, whitespace folded.

Pages type some figures by hand in their "check it yourself" sections; tests compare those
with the shared physics, and need the page text exactly as staging writes it.
"""

from __future__ import annotations

import functools

from ridgepoint.prose.figures import FigureSource, render_figures
from sims.physics import COMPUTE_EFFICIENCY, MEMORY_EFFICIENCY, Gpu, Model
from tests.repo import LAYOUT


@functools.cache
def rendered(slug: str) -> str:
    """content/explainers/<slug>.md with its figures filled in, on one line."""
    page = LAYOUT.content / "explainers" / f"{slug}.md"
    text = render_figures(page.read_text(encoding="utf-8"), str(page), FigureSource(LAYOUT))
    return " ".join(text.split())


Claim = tuple[str, float, str]
"""(phrase with {} for the figure, value, format): `phrase.format(format(value, spec))`
must appear in the rendered page."""


def hardware_claims(gpu: Gpu, name: str, bandwidth_format: str) -> list[Claim]:
    """The opening of a "check it yourself" section: the GPU's datasheet rates and the
    efficiencies the shared physics assumes."""
    return [
        (f"an {name} does {{}} TFLOP/s of dense BF16", gpu.bf16_flops / 1e12, ".0f"),
        ("and reads {} TB/s from HBM", gpu.hbm_bytes_per_s / 1e12, bandwidth_format),
        ("we assume {}% and", COMPUTE_EFFICIENCY * 100, ".0f"),
        ("and {}% of those are reachable", MEMORY_EFFICIENCY * 100, ".0f"),
    ]


def shape_claims(model: Model) -> list[Claim]:
    """A model's published shape, as the pages spell it out."""
    return [
        (f"{model.name} has {{}} layers", model.layers, "d"),
        ("hidden size {}, ", model.hidden, "d"),
        ("{} query heads", model.heads, "d"),
        ("and {} KV heads of", model.kv_heads, "d"),
        ("KV heads of {} dimensions", model.head_dim, "d"),
        ("an MLP of {} and", model.ffn, "d"),
        ("a vocabulary of {}.", model.vocab, "d"),
    ]
