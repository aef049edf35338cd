"""The catalogue as content: its records, its units, and clean errors for any broken file.

What each rule reports is pinned by the fixtures in fixtures/bad/catalogue-* (test_load.py)
and audited by test_load_rules.py; this file checks what loads, how units convert, and that
a mangled catalogue file never gives a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ridgepoint.catalogue.units import (
    collectives_note,
    gpu_figures,
    gpu_sims,
    published_params,
    quantities,
)
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from ridgepoint.content.validate import schemas
from tests.pipeline.test_load import MUTATION, load_cleanly, mutate

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
    assert gpu_sims(h100)["all_reduce"] and gpu_sims(h100)["collectives_like"] is None
    assert "fitted to 18 measured times at 2, 4, 8 GPUs" in collectives_note(h100)
    assert gpu_sims(site.gpus["b200"])["collectives_like"] == "h100"
    for gpu in site.gpus.values():
        for figure in gpu_figures(gpu):
            assert figure.source.title and figure.row, (gpu.slug, figure.label)
    for model in site.models.values():
        assert model.config_json.url and model.config_json.url.endswith("/config.json")
        assert published_params(model)[0], model.slug
    deepseek = site.models["deepseek-v3"]
    assert published_params(deepseek) == (pytest.approx(671e9), pytest.approx(37e9))
    assert deepseek.config.kv_lora_rank == 512  # config.json's own field name
    points = [point for calibration in site.calibration.values() for point in calibration.points]
    assert len(points) >= 50


@settings(max_examples=60, deadline=None)
@given(target=st.sampled_from(sorted(REAL)), mutations=st.lists(MUTATION, min_size=1,
                                                              max_size=4))
def test_a_mangled_catalogue_file_gives_clean_errors(
    target: str, mutations: list[tuple[float, str, str]]
) -> None:
    """The real catalogue, one file mutated: it loads or fails with clean errors."""
    load_cleanly({**REAL, target: mutate(REAL[target], mutations)})
