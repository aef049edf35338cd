"""The catalogue as content: its records, its units, what its page shows, and clean errors
for any broken file.

What each rule reports is pinned by the fixtures in fixtures/bad/catalogue-* (test_load.py)
and audited by test_load_rules.py; this file checks what loads, how units convert, that the
catalogue page shows each GPU's kernel profile and each profile's constants with their
sources, and that a mangled catalogue file never gives a traceback.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ridgepoint.catalogue.profiles import kernels_sims
from ridgepoint.catalogue.units import (
    gpu_figures,
    gpu_sims,
    published_params,
    quantities,
)
from ridgepoint.content.catalogue_checks import PROFILE_SECTIONS
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from ridgepoint.content.model import Site
from ridgepoint.content.validate import schemas
from ridgepoint.pages.catalogue import catalogue_page
from tests.pipeline.conftest import SAMPLE
from tests.pipeline.test_load import MUTATION, load_cleanly, mutate
from tests.repo import sims_code

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = [kind for kind in KINDS if kind.folder.startswith("content/catalogue/")]
REAL = {
    path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
    for kind in CATALOGUE
    for path in sorted((REPO / kind.folder).glob("*.yaml"))
}


@pytest.mark.parametrize(
    ("written", "kind", "value"),
    [
        ("3.35 TB/s", "bytes_per_s", 3.35e12),
        ("2039 GB/s", "bytes_per_s", 2.039e12),
        ("400 Gb/s", "bytes_per_s", 50e9),  # a network rate, in bits
        ("989 TFLOP/s", "flops", 989e12),
        ("2.25 PFLOP/s", "flops", 2.25e15),
        ("80 GB", "bytes", 80e9),
        ("64 MiB", "bytes", 2**26),
        ("30.5B", "params", 30.5e9),
        ("671B", "params", 671e9),
    ],
)
def test_quantities_convert_to_base_units(written: str, kind: str, value: float) -> None:
    assert quantities.parse(written, kind) == pytest.approx(value)


@pytest.mark.parametrize("written", ["3.35 TBps", "3.35TB/s", "989 TFLOPS", "80GB", "8 billion"])
def test_a_unit_that_does_not_parse_is_refused(written: str) -> None:
    kinds = ("bytes_per_s", "flops", "bytes", "params")
    for kind in kinds:
        with pytest.raises(ValueError):
            quantities.parse(written, kind)


def test_the_schemas_allow_exactly_the_units_the_parser_reads() -> None:
    defs = schemas()["catalogue.schema.json"]["$defs"]
    for kind in ("bytes", "bytes_per_s", "flops", "params"):
        assert defs[kind]["pattern"] == quantities.pattern(kind), kind


def test_the_real_catalogue_becomes_records_with_sources() -> None:
    site = load_site(REPO, kinds=CATALOGUE)
    assert {"a100", "h100", "h200", "b200", "mi300x", "l40s"} <= set(site.gpus)
    assert {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "qwen3-32b",
            "qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3", "gpt-oss-120b"} <= set(site.models)
    h100 = site.gpus["h100"]
    figures = {figure.label: figure for figure in gpu_figures(h100)}
    assert figures["Dense BF16"].value == pytest.approx(989e12)
    assert "with sparsity" in figures["Dense BF16"].row  # the dense figure says so
    assert figures["Memory bandwidth"].written == "3.35 TB/s"
    assert figures["Scale-up domain (GPUs)"].value == 8
    assert (gpu_sims(h100)["kernels"], gpu_sims(h100)["topology"]) == ("hopper", "switch")
    assert gpu_sims(site.gpus["mi300x"])["topology"] == "mesh"  # a link to each peer
    assert {gpu.kernels for gpu in site.gpus.values()} <= set(site.kernels)
    for gpu in site.gpus.values():
        for figure in gpu_figures(gpu):
            assert figure.source.title and figure.row, (gpu.slug, figure.label)
    for model in site.models.values():
        assert model.config_json.url and model.config_json.url.endswith("/config.json")
        # The model card's counts, or the file says why they are left out (never guessed).
        assert published_params(model)[0] or "published is left out" in (
            model.source.read_text() if model.source else ""), model.slug
    deepseek = site.models["deepseek-v3"]
    assert published_params(deepseek) == (pytest.approx(671e9), pytest.approx(37e9))
    assert deepseek.config.kv_lora_rank == 512  # config.json's own field name
    points = [point for calibration in site.calibration.values() for point in calibration.points]
    assert len(points) >= 50


def test_every_kernel_profile_gives_its_constants_with_sources_or_takes_anothers() -> None:
    """A profile with constants of its own has every class, each fit with its source, and
    the errors the fit wrote; a `like` profile takes those of one that has its own, and the
    sims read the constants it takes under its own key (with its own GPUs' errors, if any)."""
    site = load_site(REPO, kinds=CATALOGUE)
    own = {key for key, profile in site.kernels.items() if profile.like is None}
    assert {"hopper", "blackwell", "ampere"} <= own
    assert site.kernels["ada"].like == "hopper" and site.kernels["ada"].assumption
    sims = kernels_sims(site)
    for key, profile in site.kernels.items():
        if profile.like:
            assert profile.like in own and profile.assumption, key
            assert sims[key]["measured_as"] == profile.like
            assert {k: v for k, v in sims[key].items() if k not in OWN} == {
                k: v for k, v in sims[profile.like].items() if k not in OWN}
            continue
        assert sims[key]["measured_as"] == key
        for section in PROFILE_SECTIONS:
            fits = getattr(profile, section)
            assert fits is not None, (key, section)
            for fit in _fits(fits):
                assert fit.source, (key, section)
        assert profile.accuracy and profile.accuracy.categories, key


OWN = ("name", "accuracy")  # what a `like` profile keeps of its own in the sims' data


def _fits(section: object) -> list[object]:
    """The fits of a profile's section: one per format or implementation, or itself."""
    if hasattr(section, "source"):
        return [section]
    return [fit for fit in vars(section).values() if fit is not None]


def _rows(page: str, anchor: str) -> list[list[str]]:
    """The cells (as text) of the first table after the heading `{#anchor}`."""
    after = page.split(f"{{#{anchor}}}", 1)[1]
    table = after.split("</table>", 1)[0]
    rows = [[html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in
             re.findall(r"<td>(.*?)</td>", row)] for row in re.findall(r"<tr>(.*?)</tr>", table)]
    return [row for row in rows if row]  # not the head


@pytest.fixture(scope="module")
def sample() -> tuple[Site, str]:
    site = load_site(SAMPLE)
    return site, catalogue_page(site, sims_code())


def test_the_page_shows_each_gpus_kernel_profile_and_its_all_reduce_per_implementation(
    sample: tuple[Site, str],
) -> None:
    site, page = sample
    rows = {row[0]: row[1:] for row in _rows(page, "gpu-sample-gpu")}
    profile = site.kernels["sample-kernels"]
    assert rows["Kernel profile"] == [profile.name,
                                      "content/catalogue/kernels/sample-kernels.yaml"]
    assert f'<a href="#kernels-sample-kernels">{html.escape(profile.name)}</a>' in page
    assert profile.all_reduce and profile.all_reduce.custom
    nccl, custom = rows["All-reduce, nccl"], rows["All-reduce, custom"]
    assert nccl[0] == (
        "ring or two-shot: 7.6 µs at 2 GPUs, 17.6 µs at 8 GPUs, 68% of the links' bandwidth; "
        "in the switch (NVLink SHARP): 15 µs at 2 GPUs, 35 µs at 8 GPUs, 60% of the links' "
        "bandwidth")
    assert nccl[1] == f"kernel profile ({profile.all_reduce.nccl.source}), over a switch of 8 GPUs"
    assert custom[0].startswith("one-shot (reads every peer's message): 2.7 µs at 2 GPUs, ")
    assert profile.all_reduce.custom.source in custom[1]
    assert rows["Ridge point, FP8, at what its matmuls reach"][1] == (
        "derived: 66% of the rate, 79% of the bandwidth (kernel profile)")


def test_the_page_shows_each_profiles_constants_with_their_sources(
    sample: tuple[Site, str],
) -> None:
    site, page = sample
    rows = {row[0]: row[1:] for row in _rows(page, "kernels-sample-kernels")}
    assert list(rows) == [
        "Compute and memory combined",
        *(f"{label}, {fmt}" for label in ("GEMM", "Prefill attention", "Decode attention",
                                          "MoE layer") for fmt in ("BF16", "FP8", "FP4")),
        "MoE layer, W4A16", "MoE layer, W4A8", "MoE layer, W8A16",
        "Element-wise", "All-reduce, nccl", "All-reduce, custom",
    ]
    profile = site.kernels["sample-kernels"]
    assert profile.gemm and profile.gemm.fp8 and profile.decode_attention
    assert rows["GEMM, FP8"] == [
        "66% of the tensor-core peak, 79% of the memory bandwidth, 12 µs fixed, "
        "0 ns per element of k", profile.gemm.fp8.source]
    assert rows["Decode attention, FP8"][0] == (
        "82% of the memory bandwidth, at most 5.8% of it per (sequence, KV head), 5.4 µs "
        "fixed, 14.8 ns per sequence")
    assert rows["Prefill attention, BF16"][0].endswith("its tensors moved 2.75 times, "
                                                       "20.8 µs fixed, 94 ns per (sequence, head)")
    assert rows["MoE layer, FP4"][0] == (
        "its matmuls at the GEMMs' share of the peak, 70% of the memory bandwidth, 25 µs fixed "
        "per layer, 2 ns per routed row, each expert's rows in tiles of 128")
    assert rows["MoE layer, W4A8"][0].endswith("rows as routed (no tiles)")
    assert rows["Compute and memory combined"] == ["(c^p + m^p)^(1/p), p = 3",
                                                   "assumed for the sample"]
    assert rows["All-reduce, custom"][0] == (
        "one-shot (reads every peer's message): 2.7 µs at 2 GPUs, 3.6 µs at 8 GPUs, 70% of the "
        "links' bandwidth; ring or two-shot: 8.2 µs at 2 GPUs, 11 µs at 8 GPUs, 70% of the "
        "links' bandwidth")
    assert all(source for _, source in rows.values())
    like = site.kernels["sample-like"]
    after = page.split("{#kernels-sample-like}", 1)[1].split("###", 1)[0]
    assert '<a href="#kernels-sample-kernels">' in after
    assert html.escape(like.assumption or "") in after
    assert "<table" not in after.split("## Models", 1)[0]  # no constants of its own


def test_the_real_catalogue_page_lists_every_profile_and_every_source() -> None:
    site = load_site(REPO, kinds=CATALOGUE)
    page = catalogue_page(site, sims_code())
    for key, profile in site.kernels.items():
        assert f"{{#kernels-{key}}}" in page, key
        if profile.like is None:
            sources = {row[-1] for row in _rows(page, f"kernels-{key}")}
            written = {fit.source for section in PROFILE_SECTIONS
                       for fit in _fits(getattr(profile, section))}
            assert sources == written, key
    for key in site.gpus:
        assert "Kernel profile" in {row[0] for row in _rows(page, f"gpu-{key}")}, key
    # A switch reduces in place; a mesh of point-to-point links has no switch to do it.
    switch = {row[0]: row[1] for row in _rows(page, "gpu-h100")}
    mesh = {row[0]: row[1] for row in _rows(page, "gpu-mi300x")}
    assert "in the switch" in switch["All-reduce, nccl"]
    assert "ring" in mesh["All-reduce, nccl"] and "in the switch" not in mesh["All-reduce, nccl"]


def test_an_announced_gpu_is_labelled_so_and_its_fp4_variant_and_fp6_rate_are_shown() -> None:
    site = load_site(REPO, kinds=CATALOGUE)
    page = catalogue_page(site, sims_code())
    announced = sorted(key for key, gpu in site.gpus.items() if gpu.announced)
    assert announced == ["vera-rubin-nvl72"]
    assert "NVIDIA Vera Rubin NVL72 (one Rubin GPU) (announced)" in page
    assert "every figure below is the vendor&#x27;s announcement" in page or (
        "every figure below is the vendor's announcement" in page)
    rows = {row[0]: row[1] for row in _rows(page, "gpu-mi355x")}
    assert rows["Dense FP4"] == "10100 TFLOP/s (MXFP4)"
    assert rows["Dense FP6"] == "10100 TFLOP/s"
    shipping = {row[0]: row[1] for row in _rows(page, "gpu-gb300-nvl72")}
    assert shipping["Dense FP4"] == "15 PFLOP/s (NVFP4)"
    assert "announced" not in "".join(_rows(page, "gpu-gb300-nvl72")[0])


@settings(max_examples=60, deadline=None)
@given(target=st.sampled_from(sorted(REAL)), mutations=st.lists(MUTATION, min_size=1,
                                                              max_size=4))
def test_a_mangled_catalogue_file_gives_clean_errors(
    target: str, mutations: list[tuple[float, str, str]]
) -> None:
    """The real catalogue, one file mutated: it loads or fails with clean errors."""
    load_cleanly({**REAL, target: mutate(REAL[target], mutations)})
