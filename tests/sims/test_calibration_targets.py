"""The physics held to measurements it never saw: per-category targets on the held-out points,
and kernel profiles that are what a fit of the training points gives.

Issue 38's targets: each kernel class (GEMM per format and GPU generation, prefill and decode
attention, MoE layer, all-reduce by implementation) within a median |ours / measured - 1| of
10% and a 90th percentile of 25% on its held-out points; offline throughput (TensorRT-LLM's
published runs, through the serving replica) within a median of 12%. When a category misses,
fix the model, never the target, and say on the "How close?" page what the model leaves out.
The targets hold the classes the issue names (GEMMs per format and generation, all-reduce per
implementation, prefill and decode attention and MoE layers per generation, formats together)
that were fitted to training points of their own; one without any (the MI300X priced with
Hopper's constants, NCCL with NVLink SHARP forced at every size) is shown on the page with
its errors, not held here. The page also shows finer categories (each format, each weight-only
MoE kernel) with their own errors.
"""

from __future__ import annotations

import functools
import sys

import pytest

from ridgepoint.catalogue.calibration import Errors, Row, by_target, table
from ridgepoint.catalogue.categories import KERNEL_CLASSES, TARGETS, Category
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from tests.repo import LAYOUT, sims_code

KERNEL_MEDIAN, KERNEL_P90 = TARGETS["gemm"]
THROUGHPUT_MEDIAN = TARGETS["throughput"][0]


@functools.cache
def rows() -> list[Row]:
    catalogue = [kind for kind in KINDS if kind.folder.startswith("content/catalogue/")]
    return table(load_site(LAYOUT.root, kinds=catalogue), sims_code())


@functools.cache
def held_out() -> dict[Category, Errors]:
    """The held-out errors of each class the targets hold (GEMMs per format, all-reduce per
    implementation, the attention kernels and MoE layers with every format together:
    ridgepoint.catalogue.categories.held_as) that was fitted to training points of its own."""
    return {group: held for group, (trained, held) in by_target(rows()).items()
            if trained is not None and held is not None}


def _ids(categories: list[Category]) -> list[str]:
    return [category.label for category in categories]


KERNELS = [c for c in held_out() if c.kind in KERNEL_CLASSES]
THROUGHPUT = [c for c in held_out() if c.kind == "throughput"]


def test_every_kernel_class_and_throughput_has_held_out_points() -> None:
    kinds = {category.kind for category in held_out()}
    assert {*KERNEL_CLASSES, "throughput"} <= kinds
    profiles = {category.profile for category in KERNELS}
    assert {"hopper", "blackwell"} <= profiles


@pytest.mark.parametrize("category", KERNELS, ids=_ids(KERNELS))
def test_kernel_class_meets_its_held_out_targets(category: Category) -> None:
    errors = held_out()[category]
    assert errors.median <= KERNEL_MEDIAN and errors.p90 <= KERNEL_P90, (
        f"{category.label}: held-out median {errors.median:.1%} (target {KERNEL_MEDIAN:.0%}), "
        f"p90 {errors.p90:.1%} (target {KERNEL_P90:.0%}) over {errors.count} points; fix the "
        f"model, not the target")


@pytest.mark.parametrize("category", THROUGHPUT, ids=_ids(THROUGHPUT))
def test_offline_throughput_meets_its_held_out_target(category: Category) -> None:
    errors = held_out()[category]
    assert errors.median <= THROUGHPUT_MEDIAN, (
        f"{category.label}: held-out median {errors.median:.1%} (target "
        f"{THROUGHPUT_MEDIAN:.0%}) over {errors.count} runs; fix the model, not the target")


def test_nothing_is_fitted_to_a_held_out_point() -> None:
    """Every constant a fit wrote names the training points it came from, and no held-out
    point is among the calibration sets' training points: the split is the file's."""
    training = {row.point.key for row in rows() if row.point.set == "training"}
    held = {row.point.key for row in rows() if row.point.set == "held_out"}
    assert training and held and not training & held


def test_the_profiles_are_what_a_fit_of_the_training_points_gives() -> None:
    """content/catalogue/kernels/ holds the fit's constants and the errors they make; `make
    fit` rewrites them after a change to the points or the physics."""
    sys.path.insert(0, str(LAYOUT.code / "scripts"))
    from calibrate.harness import Harness
    from calibrate.profiles import refit

    changed = refit(Harness(LAYOUT), LAYOUT, write=False)
    assert not changed, f"run make fit: {', '.join(changed)} are not what a fit gives"
