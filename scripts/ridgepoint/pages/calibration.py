"""The calibration page `calibration/`, "How close is this to a real GPU?".

Every calibration point (content/catalogue/calibration.yaml) beside the physics' own figure
(ridgepoint.calibration), grouped by kind, with the largest remaining errors named and what
the model leaves out said plainly. The same rows are what tests/sims/test_calibration.py
holds to their bands.
"""

from __future__ import annotations

from ridgepoint import urls
from ridgepoint.calibration import Row, table
from ridgepoint.markup import esc, link
from ridgepoint.model import Site
from ridgepoint.pages.common import heading, page, paragraph
from sims.hardware import COMPUTE_EFFICIENCY, MEMORY_EFFICIENCY, build_gpus
from sims.physics import decode_step, prefill
from sims.pricing import KERNEL_OVERHEAD_S
from sims.shapes import build_models

GROUPS = (
    ("linear", "Linear layers", "Each matmul of a Llama 3 8B layer, alone, on an A100."),
    ("layer", "Whole layers and steps", "Many operators in a row: a layer's every operator "
     "but attention, and a whole decode step."),
    ("decode", None, None),
    ("attention", "Attention kernels", "The best rates FlashAttention-3 reports on an H100, "
     "compared as the time they imply for one long sequence."),
    ("all_reduce", "All-reduce", "The measured NCCL times the collectives are fitted to: "
     "these rows show how far the fitted line lies from its own points."),
)

# Why the largest errors of each kind remain (shown for the three largest).
CAUSES = {
    "all_reduce": "Small messages scatter from run to run (their medians range over 15-66 "
                  "us at one size on the A100), and NCCL changes algorithm and channel count "
                  "with the size: one fixed time and one bandwidth per number of GPUs "
                  "cannot follow every step of that.",
    "attention": "FlashAttention-3 reaches a smaller share of the FP8 peak (about 61%) than "
                 "of the BF16 peak (75%); the model assumes one efficiency for every format.",
    "linear": "Real GEMMs run in tiles and waves, so their time steps with the token count "
              "where the model's is smooth; near the ridge and at a few hundred tokens the "
              "measured kernels are 5-12% faster or slower than the smooth combination.",
    "layer": "Element-wise kernels run at about half the bandwidth the model gives them, "
             "a few percent of a layer.",
    "decode": "A whole step adds the scheduler and sampling, which the model leaves out.",
}

# vLLM's nightly latency test: batch 8, 32 prompt tokens and 128 output tokens each, on
# one H200 (Llama 3.1 8B) and on four (Llama 3 70B, whose shape Llama 3.1 70B shares):
# mean end-to-end latency in ms. Not held to a band: the CPU's share is in it.
VLLM_NIGHTLY = ("https://buildkite.com/vllm/performance-benchmark/builds/9515",
                (("Llama 3.1 8B", "llama-3.1-8b", 1, 833.421),
                 ("Llama 3 70B (priced as Llama 3.1 70B, the same shape)", "llama-3.1-70b", 4,
                  2077.53)))

LEAVES_OUT = (
    "The CPU: the scheduler, sampling, detokenizing and launching kernels. Engines hide "
    "some of it with CUDA graphs and asynchronous scheduling, not all (see below).",
    "Kernel shapes: tile and wave quantization, split-K, the choice of kernel by shape. The "
    "model is smooth where real times step.",
    "Overlap: communication overlapped with computation, and kernels overlapped with each "
    "other. Every operator here waits for the one before it.",
    "Engines' own collectives: vLLM's custom all-reduce and NVLink SHARP take less than "
    "NCCL called through torch.distributed, which is what was measured.",
    "Expert imbalance: routing is taken as perfectly balanced, and the distinct experts a "
    "batch touches as if tokens chose independently.",
    "Power and clocks: a GPU below its full power (gpt-fast's A100 ran at 330 W) or "
    "throttling reaches less than its datasheet.",
    "Memory beyond weights and KV: activations, the CUDA graphs' pools and the allocator's "
    "slack are the 10% of memory every fit keeps free, whatever they really need.",
)


def calibration_page(site: Site) -> str:
    rows = table(site.catalogue)
    here = urls.CALIBRATION
    outside = [row for row in rows if not row.within]
    lede = (
        f"The physics every sim uses, held to {len(rows)} published measurements. A test "
        f"(tests/sims/test_calibration.py) fails when a ratio leaves its band: 15% for "
        f"matmuls, attention and steps dominated by them, 25% for collectives. "
        + ("Every point is within its band today." if not outside else
           f"{len(outside)} points are outside their bands.")
    )
    model = (
        f"Each operator of a step (each matmul, the attention kernel, the element-wise "
        f"kernels of a layer) takes sqrt(c^2 + m^2) + {KERNEL_OVERHEAD_S * 1e6:.0f} us: c its "
        f"FLOPs at {COMPUTE_EFFICIENCY:.0%} of the tensor-core rate for its format, m its bytes "
        f"at {MEMORY_EFFICIENCY:.0%} of the memory bandwidth, and a fixed cost per kernel. The "
        f"step is the sum over its operators, plus its collectives, fitted per number of GPUs "
        f"to measured NCCL times. The rates and bandwidths are the catalogue's."
    )
    blocks = [paragraph(esc(lede), "rp-lede"), heading(2, "The model", "model"),
              paragraph(esc(model), "rp-note"),
              paragraph(f"The GPUs and models are those of the "
                        f"{link(urls.relative(here, urls.CATALOGUE), 'catalogue')}.", "rp-note")]
    for kind, title, note in GROUPS:
        group = [row for row in rows if row.reference.kind == kind]
        if not group:
            continue
        if title:
            blocks += [heading(2, title, kind.replace("_", "-")), paragraph(esc(note), "rp-note")]
        blocks.append(_table(group))
    blocks += [heading(2, "Why not the longer of the two", "max"),
               paragraph(esc(_plain(rows)), "rp-note")]
    blocks += [heading(2, "The largest remaining errors", "largest"), _largest(rows)]
    blocks += [heading(2, "What the model leaves out", "leaves-out"),
               "<ul>" + "".join(f"<li>{esc(item)}</li>" for item in LEAVES_OUT) + "</ul>",
               heading(2, "Beyond the kernels: a whole request", "request"), _nightly(site)]
    return page("How close is this to a real GPU?", *blocks,
                description="The shared physics against published measurements, point by "
                            "point, and what it leaves out.")


def _nightly(site: Site) -> str:
    """vLLM's nightly end-to-end latency beside the steps the physics prices for it."""
    url, runs = VLLM_NIGHTLY
    gpus = build_gpus({key: entry.sims for key, entry in site.catalogue.gpus.items()})
    models = build_models({key: entry.sims for key, entry in site.catalogue.models.items()})
    if "h200" not in gpus or any(key not in models for _, key, _, _ in runs):
        return ""
    sentences = []
    for name, key, tp, measured_ms in runs:
        model, gpu = models[key], gpus["h200"]
        ours = prefill(gpu, model, 32, batch=8, tp=tp).time_s + sum(
            decode_step(gpu, model, 8, 32 + step, tp).time_s for step in range(127))
        sentences.append(f"{name} on {tp} H200{'s' if tp > 1 else ''}: measured "
                         f"{measured_ms:,.0f} ms, the kernels and collectives priced here "
                         f"{ours * 1e3:,.0f} ms ({ours * 1e3 / measured_ms:.2f})")
    text = (
        "vLLM's nightly latency test serves batches of 8 requests of 32 prompt tokens and 128 "
        "output tokens. " + "; ".join(sentences) + ". On one GPU the missing CPU time shows; "
        "over four, it is hidden by vLLM's own all-reduce, quicker than the NCCL calls "
        "measured for the fit. These two are not held to a band."
    )
    source = link(url, "vLLM performance benchmark, build 9515, latency tests")
    return paragraph(f"{esc(text)} Source: {source}.", "rp-note")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.4g} ms"


def _table(rows: list[Row]) -> str:
    head = ("What was measured", "GPU", "Measured by", "Measured", "Ours", "Ours / measured",
            "Band", "Source")
    cells = "".join(f"<th>{esc(cell)}</th>" for cell in head)
    body = ""
    for row in rows:
        ref = row.reference
        measured = (_ms(row.measured_s) if ref.measured_s is not None
                    else f"{ref.measured_flops_per_s / 1e12:,.0f} TFLOP/s ({_ms(row.measured_s)})")
        source = link(ref.source.url, ref.source.title) if ref.source.url else esc(
            ref.source.title)
        values = (esc(ref.what), esc(ref.hardware), esc(ref.measured_by), esc(measured),
                  esc(_ms(row.ours_s)), esc(f"{row.ratio:.2f}"), esc(f"±{ref.band:.0%}"),
                  f"{source}: {esc(ref.where)}")
        status = "within" if row.within else "outside"
        body += f'<tr data-band="{status}">' + "".join(f"<td>{v}</td>" for v in values) + "</tr>"
    return (f'<table class="rp-calibration"><thead><tr>{cells}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _plain(rows: list[Row]) -> str:
    linear = [row for row in rows if row.plain_ratio is not None]
    if not linear:
        return "No linear layer is in the table."
    worst = max(linear, key=lambda row: abs(row.plain_ratio - 1))
    ours = max(linear, key=lambda row: abs(row.ratio - 1))
    return (
        f"Pricing each operator as the longer of its compute and memory time, max(c, m), "
        f"is what a roofline says. Against the linear layers above it is off by up to "
        f"{abs(worst.plain_ratio - 1):.0%} ({worst.reference.what}: {worst.plain_ratio:.2f}), "
        f"because a matmul near its ridge is slower than either time alone; sqrt(c^2 + m^2) "
        f"is off by at most {abs(ours.ratio - 1):.0%} ({ours.reference.what}: "
        f"{ours.ratio:.2f}). Far from the ridge the two agree."
    )


def _largest(rows: list[Row]) -> str:
    ranked = sorted(rows, key=lambda row: abs(row.ratio - 1), reverse=True)[:3]
    items = "".join(
        f"<li>{esc(row.reference.what)} on the {esc(row.reference.hardware)}: ours / measured "
        f"{row.ratio:.2f} (band ±{row.reference.band:.0%}). "
        f"{esc(CAUSES[row.reference.kind])}</li>"
        for row in ranked
    )
    return f"<ol>{items}</ol>"
