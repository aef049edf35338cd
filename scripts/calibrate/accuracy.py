"""How close a set of kernel profiles comes to the calibration: for each profile, the errors
of every category its GPUs' points fall in (a kernel class with its format or all-reduce
implementation, and offline throughput), on the training and the held-out points apart.

Written into each profile beside its constants (calibrate.write), so that the sims can say
which regime a result falls in and the measured error there; the "How close?" page computes
the same errors afresh from the table, and `--check` holds the two together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from calibrate.harness import Harness
from ridgepoint.catalogue.calibration import Errors
from sims.physics.profile import KernelProfile

# The categories a sim can quote: the kernel classes and offline throughput.
KINDS = ("gemm", "prefill_attention", "decode_attention", "moe", "all_reduce", "throughput")
SETS = ("training", "held_out")


class CategoryErrors(NamedTuple):
    kind: str
    variant: str  # "" for throughput
    errors: Mapping[str, Errors]  # by set, for the sets with points


def accuracy(harness: Harness, profiles: Mapping[str, KernelProfile]
             ) -> dict[str, list[CategoryErrors]]:
    """Each profile's categories (in first-seen order) with their errors when the GPUs run
    on `profiles` (by key; the others keep the catalogue's)."""
    gpus = harness.gpus_under(profiles)
    ratios: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    for point in harness.points:
        profile, kind, variant = point.category
        chosen = point.point.set
        if kind not in KINDS or chosen not in SETS:
            continue
        by_set = ratios.setdefault((profile, kind, variant), {})
        by_set.setdefault(chosen, []).append(harness.ratio(point, gpus))
    found: dict[str, list[CategoryErrors]] = {}
    for (profile, kind, variant), by_set in ratios.items():
        errors = {name: Errors.of_ratios(by_set[name]) for name in SETS if name in by_set}
        found.setdefault(profile, []).append(CategoryErrors(kind, variant, errors))
    return found
