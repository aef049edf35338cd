"""The calibration points and the sims' physics, loaded once, and each point priced under any
kernel profiles: what the fit varies and what the table reports.

Prices come from ridgepoint.catalogue.calibration.price (the pipeline's, which the page and
the tests use), run on the sims as this process imports them, with GPUs rebuilt around the
profiles being tried.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import sims.physics as physics
from ridgepoint.base.layout import Layout
from ridgepoint.catalogue.calibration import Physics, deployment_budgets, measured_s, price
from ridgepoint.catalogue.categories import Category, category
from ridgepoint.catalogue.profiles import engines_sims
from ridgepoint.catalogue.units import sims_data
from ridgepoint.content.calibration_records import CalibrationPoint
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from ridgepoint.content.model import Site
from sims.physics import alone, hardware, precision, pricing, profile, shapes
from sims.serving import deploy, engines, offline


@dataclasses.dataclass(frozen=True)
class Point:
    """A calibration point with its category and measured time."""

    point: CalibrationPoint
    file: str
    category: Category
    measured_s: float


class Harness:
    """The catalogue's points, GPUs, models and profiles, for pricing under trial profiles."""

    def __init__(self, layout: Layout) -> None:
        catalogue = [kind for kind in KINDS if kind.folder.startswith("content/catalogue/")]
        self.site: Site = load_site(layout.root, kinds=catalogue)
        gpu_data, model_data, kernel_data = sims_data(self.site)
        self.profiles = profile.build_profiles(kernel_data)
        self.gpu_data = gpu_data
        self.models = shapes.build_models(model_data)
        self.gpus = hardware.build_gpus(gpu_data, self.profiles)
        self.engines = engines.build_engines(engines_sims(self.site))
        self.budgets = deployment_budgets(self.site)
        self.physics = Physics(physics, pricing, alone, offline, deploy, self.engines,
                               self.budgets)
        # Each profile key, and the one whose constants it takes (itself, or the one it is like).
        self.source = {key: record.like or key for key, record in self.site.kernels.items()}
        self.points = [
            Point(point, key, category(self.site, point, precision), measured_s(point))
            for key, calibration in self.site.calibration.items()
            for point in calibration.points
        ]

    def gpus_under(self, profiles: Mapping[str, profile.KernelProfile]) -> dict[str, Any]:
        """The catalogue's GPUs with these profiles (by key, with their own constants) in
        place of their own, and of every profile that is like one of them."""
        gpus = {}
        for key, gpu in self.gpus.items():
            trial = profiles.get(self.source[gpu.kernels.key])
            kernels = gpu.kernels if trial is None else trial._replace(
                key=gpu.kernels.key, name=gpu.kernels.name)
            gpus[key] = dataclasses.replace(gpu, kernels=kernels)
        return gpus

    def ratio(self, point: Point, gpus: Mapping[str, Any] | None = None,
              engines: Mapping[str, Any] | None = None,
              budgets: Mapping[str, Mapping[tuple[str, int], int]] | None = None) -> float:
        """Ours over measured, as times, under `gpus`, `engines` and deployment `budgets`
        (default: the catalogue's)."""
        gpu = (gpus or self.gpus)[point.point.gpu]
        physics = self.physics
        if engines is not None:
            physics = dataclasses.replace(physics, engines=engines)
        if budgets is not None:
            physics = dataclasses.replace(physics, budgets=budgets)
        return price(physics, point.point, gpu, self.models) / point.measured_s
