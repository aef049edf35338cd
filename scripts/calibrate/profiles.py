"""Refit every kernel profile with constants of its own, and write it back as YAML with the
errors those constants make.

For each profile, class and format (or all-reduce implementation) with training points, the
constants are fitted to those points alone (calibrate.fit); a class or format without any
keeps what the profile's file says (an assumption, with its stated source). The overlap
exponent and the element-wise kernels are not fitted: no training point isolates them.
Then every point, training and held out, is priced under the new constants, and each
category's errors are written beside them (calibrate.accuracy).
"""

from __future__ import annotations

import math
from pathlib import Path

from calibrate.accuracy import CategoryErrors, accuracy
from calibrate.allreduce import fit_all_reduce
from calibrate.fit import CLASSES, Fitted, fit_class
from calibrate.harness import Harness
from calibrate.write import render, render_like
from ridgepoint.base.layout import Layout
from sims.physics.profile import KernelProfile

TOLERANCE = 1e-3  # relative: a committed constant this close to the fit's is the fit's
ERROR_TOLERANCE = 1e-3  # absolute, on an error written as a fraction


def refit(harness: Harness, layout: Layout, write: bool) -> list[str]:
    """Fit every own profile; write the changed ones when `write`. The keys of the profiles
    whose constants, or the errors they make, the fit changes (beyond the tolerances)."""
    records = harness.site.kernels
    own = sorted(key for key, record in records.items() if record.like is None)
    training = _training(harness)
    fitted = {key: _fit(harness, key, training) for key in own}
    trial = {key: applied(harness.profiles[key], fitted[key]) for key in own}
    errors = accuracy(harness, trial)
    changed = [key for key in sorted(records)
               if (key in own and not _same(harness.profiles[key], trial[key], fitted[key]))
               or not _same_errors(harness.profiles[key], errors.get(key, []))]
    if write:
        for key in sorted(records):
            path = layout.content / "catalogue" / "kernels" / f"{key}.yaml"
            text = (render(records[key], fitted[key], errors.get(key, [])) if key in own
                    else render_like(records[key], errors.get(key, [])))
            Path(path).write_text(text, encoding="utf-8")
    return changed


def _fit(harness: Harness, key: str, training: dict[tuple[str, str, str], list]
         ) -> dict[tuple[str, str], Fitted]:
    fitted: dict[tuple[str, str], Fitted] = {}
    for (profile, cls, variant), points in training.items():
        if profile != key:
            continue
        if cls in CLASSES:
            fitted[(cls, variant)] = fit_class(harness, key, cls, variant, points)
        elif cls == "all_reduce":
            fitted[(cls, variant)] = fit_all_reduce(harness, key, variant, points)
    return fitted


def applied(base: KernelProfile, fitted: dict[tuple[str, str], Fitted]) -> KernelProfile:
    """`base` with the fitted constants in place of its own."""
    sections: dict[str, dict] = {}
    for (cls, variant), found in fitted.items():
        sections.setdefault(cls, dict(getattr(base, cls)))[variant] = found.fit
    return base._replace(**sections)


def _training(harness: Harness) -> dict[tuple[str, str, str], list]:
    grouped: dict[tuple[str, str, str], list] = {}
    for point in harness.points:
        if point.point.set == "training" and point.category.variant:
            grouped.setdefault(tuple(point.category), []).append(point)
    return grouped


def _same(current: KernelProfile, trial: KernelProfile,
          fitted: dict[tuple[str, str], Fitted]) -> bool:
    """Whether the profile's current constants are the fitted ones, within TOLERANCE."""
    for cls, variant in fitted:
        now, found = getattr(current, cls).get(variant), getattr(trial, cls)[variant]
        if now is None or not _alike(now, found):
            return False
    return True


def _alike(a: object, b: object) -> bool:
    """Two fits' constants equal within TOLERANCE, through their tuples and mappings."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_alike(a[key], b[key]) for key in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_alike(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    assert isinstance(a, int | float) and isinstance(b, int | float)
    return _close(a, b)


def _same_errors(current: KernelProfile, found: list[CategoryErrors]) -> bool:
    """Whether the errors the profile states are the ones its constants make."""
    stated = current.accuracy
    expected = {(category.kind, category.variant, name): errors
                for category in found for name, errors in category.errors.items()}
    if stated.keys() != expected.keys():
        return False
    return all(stated[key].points == errors.count
               and abs(stated[key].median - errors.median) <= ERROR_TOLERANCE
               and abs(stated[key].p90 - errors.p90) <= ERROR_TOLERANCE
               for key, errors in expected.items())


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=1e-12)
