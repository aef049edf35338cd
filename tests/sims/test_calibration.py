"""The physics against published measurements: every banded point within its band, every
unbanded one with a reason its kind allows, every point in the category its GPU's kernel
profile and its kernel class give.

The points are content (content/catalogue/calibration/, one file per publication); the
prices are ridgepoint.catalogue.calibration's, the sims' own physics run on the same catalogue.
When a point leaves its band, fix the model rather than the band: the bands themselves are
held here to 15% for matmuls, attention and steps dominated by them, and 25% for collectives.
Points in a training or held-out set are held per category to issue 38's targets by
test_calibration_targets.py; the "How close?" page that shows them all is
tests/pipeline/test_calibration_page.py's.
"""

from __future__ import annotations

import functools
import statistics

import pytest

from ridgepoint.catalogue.calibration import Row, summary, table
from ridgepoint.catalogue.categories import CLASSES, KERNEL_CLASSES, SERVED, Category
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from ridgepoint.content.model import Site
from sims.physics import GPUS, PROFILES, alone
from tests.repo import LAYOUT, sims_code

LARGEST_BAND = {"linear": 0.15, "attention": 0.15, "attention_decode": 0.15, "moe": 0.15,
                "layer": 0.15, "decode": 0.15, "prefill": 0.15, "all_reduce": 0.25}
# Kinds a point outside the sets may be shown in without a band, each for a reason its YAML
# states: a whole prefill or request carries host and engine work (copying the prompt,
# scheduling, sampling) the physics does not price, and an all-reduce timed through
# torch.distributed carries the framework's call around NCCL, which the profiles' NCCL
# constants (fitted to nccl-tests and TensorRT-LLM's timings) do not pay.
UNBANDED_KINDS = ("prefill", "request", "all_reduce")
TORCH_DISTRIBUTED = "torch.distributed"


@functools.cache
def site() -> Site:
    catalogue = [kind for kind in KINDS if kind.folder.startswith("content/catalogue/")]
    return load_site(LAYOUT.root, kinds=catalogue)


@functools.cache
def rows() -> list[Row]:
    return table(site(), sims_code())


def _id(row: Row) -> str:
    return row.point.key


@pytest.mark.parametrize("row", [r for r in rows() if r.within is not None], ids=_id)
def test_every_banded_point_is_within_its_band(row: Row) -> None:
    assert abs(row.ratio - 1) <= row.point.band, (
        f"{row.point.what}: ours {row.ours_s * 1e3:.4g} ms against measured "
        f"{row.measured_s * 1e3:.4g} ms ({row.ratio:.2f}); fix the model, not the band")


@pytest.mark.parametrize("row", rows(), ids=_id)
def test_no_band_is_wider_than_its_kind_allows(row: Row) -> None:
    point = row.point
    if point.band is not None:
        assert point.band <= LARGEST_BAND[point.kind]
    elif point.set is None:  # a point in a set is held by its category's targets
        assert point.kind in UNBANDED_KINDS and point.unbanded
        if point.kind == "all_reduce":
            assert TORCH_DISTRIBUTED in point.unbanded
            assert TORCH_DISTRIBUTED in row.publication.publication.title


def test_torch_distributed_all_reduces_take_longer_than_nccl_where_latency_dominates() -> None:
    """The reason those all-reduces carry no band, as a figure: up to 1 MiB, where the fixed
    latency is most of the time, the framework's call makes every one slower than the
    profile's NCCL; at tens of MiB the links dominate and the two meet."""
    framework = [row for row in rows() if row.point.kind == "all_reduce"
                 and row.point.set is None and row.point.band is None]
    small = [row for row in framework if row.point.case.bytes <= 1 << 20]
    large = [row for row in framework if row.point.case.bytes >= 48 << 20]
    assert len(small) >= 3 and len(large) >= 3
    assert all(row.ratio < 1 for row in small), [(row.point.key, row.ratio) for row in small]
    assert statistics.median(abs(row.ratio - 1) for row in large) <= LARGEST_BAND["all_reduce"]


def test_every_point_in_a_set_is_priced_to_a_positive_time() -> None:
    in_sets = [row for row in rows() if row.point.set is not None]
    assert in_sets and all(row.ours_s > 0 and row.measured_s > 0 for row in in_sets)


def test_each_point_counts_towards_its_gpus_own_profile_and_its_kernel_class() -> None:
    """An H200's points count to Hopper's categories beside the H100's; an MI300X's to its
    own profile, never to Hopper's whose constants it borrows."""
    for row in rows():
        category, point = row.category, row.point
        assert isinstance(category, Category)
        assert category.profile == GPUS[point.gpu].kernels.key, point.key
        assert category.kind == CLASSES.get(point.kind, point.kind), point.key
        if category.kind in SERVED:  # a served run's figures, by engine
            assert category.variant == point.case.engine, point.key
        else:
            assert (category.variant == "") == (category.kind not in KERNEL_CLASSES), point.key
    assert Category("hopper", "gemm", "fp8").label == "GEMM, FP8, hopper"
    assert Category("hopper", "all_reduce", "nvls").label == "All-reduce, nvls, hopper"
    assert Category("blackwell", "throughput", "").label == "Offline throughput, blackwell"
    assert Category("hopper", "tpot", "vllm").label == "Served TPOT, vllm, hopper"


def test_every_held_out_category_has_training_points_behind_its_constants() -> None:
    """The split leaves nothing fitted blind. A category held out on a profile with training
    points of its own has training points too (the H200 is held out whole, and Hopper's
    categories train on the H100's), or for NCCL with NVLink SHARP forced (nvls), NCCL's,
    whose in-switch algorithm it runs. A profile with none (the MI300X's) prices with the
    constants of one that has them, and says so."""
    errors = summary(rows())
    trained = {category for category, chosen in errors if chosen == "training"}
    trained_profiles = {category.profile for category in trained}
    held_out = [category for category, chosen in errors if chosen == "held_out"]
    assert held_out and trained
    for category in held_out:
        if category.profile in trained_profiles:
            fitted_as = category._replace(variant="nccl") if category.variant == "nvls" else (
                category)
            assert fitted_as in trained, category.label
        else:
            assert PROFILES[category.profile].measured_as in trained_profiles, category.label


def test_the_table_covers_kernels_collectives_and_whole_steps() -> None:
    banded = [row for row in rows() if row.within is not None]
    assert {"linear", "all_reduce", "decode", "prefill", "layer"} <= {
        row.point.kind for row in banded}
    assert {2, 8} <= {row.point.case.gpus for row in banded if row.point.kind == "all_reduce"}
    steps = [row for row in banded if row.point.kind in ("decode", "prefill", "layer")]
    assert len(steps) >= 3
    sizes = {row.point.case.tokens for row in banded if row.point.kind == "linear"}
    assert min(sizes) == 1 and max(sizes) >= 4096  # from decode-sized to prefill-sized
    # The sets: every kernel class and offline throughput on both sides of the split.
    in_sets = [row for row in rows() if row.point.set is not None]
    sides = {(row.category.kind, row.point.set) for row in in_sets}
    for kind in (*KERNEL_CLASSES, "throughput"):
        assert {(kind, "training"), (kind, "held_out")} <= sides, kind
    assert {2, 4, 8} <= {row.point.case.gpus for row in in_sets
                         if row.point.kind == "all_reduce"}


def test_the_overlap_exponent_is_what_holds_the_gemms_near_their_ridge() -> None:
    """What (c^p + m^p)^(1/p) buys over either extreme, on the held-out GEMMs whose compute
    and memory times are within a factor of two of each other: with the profiles' own
    constants, taking the longer of the two (max(c, m)) or both one after the other (c + m)
    misses them by more. (Far from the ridge all three agree.)"""
    near: list[tuple[float, float, float]] = []
    for row in rows():
        point, case = row.point, row.point.case
        if point.kind != "linear" or point.set != "held_out":
            continue
        fmt = case.weights or "bf16"
        op = alone.gemm(GPUS[point.gpu], case.tokens, case.k, case.n, fmt,
                        case.activations or fmt)
        assert op.time_s == pytest.approx(row.ours_s, rel=1e-9)  # the table's own price
        if 0.5 <= op.compute_s / op.memory_s <= 2:
            near.append(tuple(abs(seconds / row.measured_s - 1) for seconds in (
                op.time_s, op.fixed_s + max(op.compute_s, op.memory_s),
                op.fixed_s + op.compute_s + op.memory_s)))
    assert len(near) >= 10
    ours, longer, both = (statistics.median(errors) for errors in zip(*near, strict=True))
    assert ours < longer and ours < both, (ours, longer, both)
