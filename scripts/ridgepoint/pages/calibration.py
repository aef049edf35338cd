"""The calibration page `calibration/`, "How close is this to a real GPU?".

Every calibration point (content/catalogue/calibration/) beside the physics' own figure
(ridgepoint.catalogue.calibration), grouped by kind, with the largest remaining errors named
and what the model leaves out said plainly; the points held to no band follow, each with its reason,
then the points in a training or held-out set: their errors per category, and each point.
The banded rows are what tests/sims/test_calibration.py holds to their bands.
"""

from __future__ import annotations

from ridgepoint.base import urls
from ridgepoint.base.markup import esc, link
from ridgepoint.catalogue.calibration import Row, summary, table
from ridgepoint.content.model import Site
from ridgepoint.pages.common import heading, page, paragraph
from ridgepoint.sims.simcode import SimCode

GROUPS = (
    (("linear",), "Linear layers", "linear",
     "Each matmul of a Llama 3 8B layer, alone, on an A100."),
    (("layer", "decode", "prefill"), "Whole layers and steps", "steps",
     "Many operators in a row: a layer's every operator but attention, a whole decode step, "
     "and whole prefills from prompt to first token."),
    (("attention", "attention_decode"), "Attention kernels", "attention",
     "The best rates FlashAttention-3 reports on an H100, compared as the time they imply "
     "for one long sequence."),
    (("moe",), "Mixture-of-experts layers", "moe", "One GPU's share of an MoE layer."),
    (("all_reduce",), "All-reduce", "all-reduce",
     "The measured NCCL times the collectives are fitted to: these rows show how far the "
     "fitted line lies from its own points."),
)

# Why the largest errors of each kind remain (shown for the three largest).
CAUSES = {
    "all_reduce": "Small messages scatter: over two A100s the medians of the 37 sizes from "
                  "92 KB to 387 KB (Vidur's CSV, rows 1005-1041) range over 15-66 us with no "
                  "trend in the size, and NCCL changes algorithm and channel count with the "
                  "size: one fixed time and one bandwidth per number of GPUs cannot follow "
                  "every step of that.",
    "attention": "FlashAttention-3 reaches a smaller share of the FP8 peak (about 61%) than "
                 "of the BF16 peak (75%); the model assumes one efficiency for every format.",
    "linear": "Real GEMMs run in tiles and waves, so their time steps with the token count "
              "where the model's is smooth; near the ridge and at a few hundred tokens the "
              "measured kernels are 5-12% faster or slower than the smooth combination.",
    "layer": "Element-wise kernels run at about half the bandwidth the model gives them, "
             "a few percent of a layer.",
    "decode": "A whole step adds the scheduler and sampling, which the model leaves out.",
    "prefill": "A whole prefill adds the host's work before the first kernel and sampling "
               "after the last, which the model leaves out.",
}

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


def calibration_page(site: Site, code: SimCode) -> str:
    """The lede and the model, the banded rows by group, the largest errors, what the model
    leaves out, then the points held to no band; priced by `code`, the sims as read."""
    rows = table(site, code)
    hardware, pricing = code.module("physics.hardware"), code.module("physics.pricing")
    banded = [row for row in rows if row.within is not None]
    here = urls.CALIBRATION
    outside = [row for row in banded if not row.within]
    lede = (
        f"The physics every sim uses, held to {len(banded)} published measurements. A test "
        f"(tests/sims/test_calibration.py) fails when a ratio leaves its band: 15% for "
        f"matmuls, attention and steps dominated by them, 25% for collectives. "
        + ("Every point is within its band today." if not outside else
           f"{len(outside)} points are outside their bands.")
    )
    model = (
        f"Each operator of a step (each matmul, the attention kernel, the element-wise "
        f"kernels of a layer) takes sqrt(c^2 + m^2) + "
        f"{pricing.KERNEL_OVERHEAD_S * 1e6:.0f} us: c its FLOPs at "
        f"{hardware.COMPUTE_EFFICIENCY:.0%} of the tensor-core rate for its format, m its "
        f"bytes at {hardware.MEMORY_EFFICIENCY:.0%} of the memory bandwidth, and a fixed cost "
        f"per kernel. The "
        f"step is the sum over its operators, plus its collectives, fitted per number of GPUs "
        f"to measured NCCL times. The rates and bandwidths are the catalogue's."
    )
    blocks = [paragraph(esc(lede), "rp-lede"), heading(2, "The model", "model"),
              paragraph(esc(model), "rp-note"),
              paragraph(f"The GPUs and models are those of the "
                        f"{link(urls.relative(here, urls.CATALOGUE), 'catalogue')}.", "rp-note")]
    for kinds, title, anchor, note in GROUPS:
        group = [row for row in banded if row.point.kind in kinds]
        if group:
            blocks += [heading(2, title, anchor), paragraph(esc(note), "rp-note"), _table(group)]
    blocks += [heading(2, "Why not the longer of the two", "max"),
               paragraph(esc(_plain(banded)), "rp-note")]
    blocks += [heading(2, "The largest remaining errors", "largest"), _largest(banded)]
    blocks += [heading(2, "What the model leaves out", "leaves-out"),
               "<ul>" + "".join(f"<li>{esc(item)}</li>" for item in LEAVES_OUT) + "</ul>"]
    unbanded = [row for row in rows if row.within is None and row.point.set is None]
    if unbanded:
        blocks += [heading(2, "Held to no band", "unbanded"), paragraph(esc(
            "Published figures the physics is shown beside but not held to, each with the "
            "reason: whole requests through an engine, and measurements whose conditions the "
            "model does not describe."), "rp-note"), _table(unbanded, reasons=True)]
    in_sets = [row for row in rows if row.point.set is not None]
    if in_sets:
        blocks += _sets(in_sets)
    return page("How close is this to a real GPU?", *blocks,
                description="The shared physics against published measurements, point by "
                            "point, and what it leaves out.")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.4g} ms"


def _table(rows: list[Row], reasons: bool = False) -> str:
    """The rows as a table; `reasons` gives the why-no-band column in place of the band."""
    head = ("What was measured", "GPU", "Measured by", "Measured", "Ours", "Ours / measured",
            "Why no band" if reasons else "Band", "Source")
    cells = "".join(f"<th>{esc(cell)}</th>" for cell in head)
    body = ""
    for row in rows:
        point, publication = row.point, row.publication.publication
        measured = (_ms(row.measured_s) if point.measured_tflops is None
                    else f"{point.measured_tflops:,.0f} TFLOP/s ({_ms(row.measured_s)})")
        source = (link(publication.url, publication.title) if publication.url
                  else esc(publication.title))
        band = point.unbanded or "" if reasons else f"±{point.band:.0%}"
        values = (esc(point.what), esc(point.gpu), esc(row.publication.measured_by),
                  esc(measured), esc(_ms(row.ours_s)), esc(f"{row.ratio:.2f}"), esc(band),
                  f"{source}: {esc(point.where)}")
        status = {True: "within", False: "outside", None: "none"}[row.within]
        body += f'<tr data-band="{status}">' + "".join(f"<td>{v}</td>" for v in values) + "</tr>"
    return (f'<table class="rp-calibration"><thead><tr>{cells}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _sets(rows: list[Row]) -> list[str]:
    """The points in a training or held-out set: errors per category and set, how each
    publication split its points, then every point in one compact row."""
    note = ("Measured kernels and collectives, each in a training set (what a fit of the "
            "physics may use) or a held-out set (what nothing is fitted to), split by the "
            "publication's stated rule before any fitting. They are held to targets per "
            "category, not to a band per point. |error| is |ours / measured - 1|.")
    head = "".join(f"<th>{esc(cell)}</th>" for cell in (
        "Category", "Set", "Points", "Median |error|", "90th percentile |error|",
        "Median ours / measured"))
    body = "".join(
        f'<tr data-category="{esc(category)}" data-set="{esc(chosen)}">' + "".join(
            f"<td>{esc(value)}</td>" for value in (
                category, chosen.replace("_", " "), str(errors.count), f"{errors.median:.0%}",
                f"{errors.p90:.0%}", f"{errors.median_ratio:.2f}")) + "</tr>"
        for (category, chosen), errors in summary(rows).items())
    blocks = [heading(2, "Training and held-out sets", "sets"), paragraph(esc(note), "rp-note"),
              f'<table class="rp-calibration"><thead><tr>{head}</tr></thead>'
              f"<tbody>{body}</tbody></table>"]
    publications = {id(row.publication): row.publication for row in rows}
    for publication in publications.values():
        source = publication.publication
        cited = link(source.url, source.title) if source.url else esc(source.title)
        blocks.append(paragraph(f"{cited}, measured by {esc(publication.measured_by)}. "
                                f"{esc(publication.split or '')}", "rp-note"))
    cells = "".join(f"<th>{esc(cell)}</th>" for cell in (
        "Point", "GPU", "Set", "Measured", "Ours", "Ours / measured"))
    points = "".join(
        f'<tr data-set="{esc(row.point.set or "")}">' + "".join(
            f"<td>{esc(value)}</td>" for value in (
                row.point.key, row.point.gpu, (row.point.set or "").replace("_", " "),
                _ms(row.measured_s), _ms(row.ours_s), f"{row.ratio:.2f}")) + "</tr>"
        for row in rows)
    return [*blocks, f'<table class="rp-calibration"><thead><tr>{cells}</tr></thead>'
                     f"<tbody>{points}</tbody></table>"]


def _plain(rows: list[Row]) -> str:
    linear = [row for row in rows if row.plain_ratio is not None]
    if not linear:
        return "No linear layer is in the table."
    worst = max(linear, key=lambda row: abs(row.plain_ratio - 1))
    ours = max(linear, key=lambda row: abs(row.ratio - 1))
    return (
        f"Pricing each operator as the longer of its compute and memory time, max(c, m), "
        f"is what a roofline says. Against the linear layers above it is off by up to "
        f"{abs(worst.plain_ratio - 1):.0%} ({worst.point.what}: {worst.plain_ratio:.2f}), "
        f"because a matmul near its ridge is slower than either time alone; sqrt(c^2 + m^2) "
        f"is off by at most {abs(ours.ratio - 1):.0%} ({ours.point.what}: "
        f"{ours.ratio:.2f}). Far from the ridge the two agree."
    )


def _largest(rows: list[Row]) -> str:
    ranked = sorted(rows, key=lambda row: abs(row.ratio - 1), reverse=True)[:3]
    items = "".join(
        f"<li>{esc(row.point.what)} on the {esc(row.point.gpu)}: ours / measured "
        f"{row.ratio:.2f} (band ±{row.point.band:.0%}). "
        f"{esc(CAUSES.get(row.point.kind, ''))}</li>"
        for row in ranked
    )
    return f"<ol>{items}</ol>"
