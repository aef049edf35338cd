"""GPUs: the datasheet figures a step is priced with, built from the catalogue.

Every figure comes from content/catalogue/gpus/<key>.yaml (through sims/physics/catalogue_data.py)
with its source; nothing here holds a number of its own. Rates are dense: a datasheet rate
quoted with sparsity is halved in the catalogue and the source row says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sims.physics.precision import LABELS, PRECISIONS
from sims.physics.profile import KernelProfile


@dataclass(frozen=True, eq=False)  # one object per catalogue entry: hashed by identity
class Gpu:
    """One accelerator, as the catalogue describes it."""

    key: str
    name: str
    dense_flops: Mapping[str, float]  # FLOP/s by precision, dense; a precision it lacks is absent
    hbm_bytes: float  # memory capacity, bytes
    hbm_bytes_per_s: float  # memory bandwidth, bytes/s
    scale_up_link: str  # e.g. "NVLink 4 through NVSwitch"
    scale_up_bytes_per_s: float  # one direction, bytes/s
    scale_up_gpus: int  # GPUs in one scale-up domain
    topology: str  # switch (any GPU reaches any other at its full rate) | mesh (a link each)
    host_link: str | None  # e.g. "PCIe Gen5 x16"
    host_link_bytes_per_s: float | None  # one direction, bytes/s
    scale_out_bytes_per_s: float | None  # network per GPU, one direction, bytes/s
    kernels: KernelProfile  # how fast its kernels run, by class (fitted or assumed)
    # On-demand list price in US dollars per GPU-hour, None where the catalogue cites none,
    # and where it comes from (or why there is none).
    price_per_gpu_hour: float | None = None
    price_note: str = ""

    def flops(self, precision: str) -> float:
        """The dense tensor-core rate for `precision`; ValueError if the GPU has none."""
        rate = self.dense_flops.get(precision)
        if rate is None:
            has = ", ".join(LABELS[p] for p in PRECISIONS if p in self.dense_flops)
            raise ValueError(f"the {self.name} has no {LABELS[precision]} tensor-core rate "
                             f"(it has {has})")
        return rate

    @property
    def bf16_flops(self) -> float:
        return self.dense_flops["bf16"]

    def ridge(self, precision: str = "bf16", efficient: bool = False) -> float:
        """FLOP per byte at which compute time equals memory time: peak rate over peak
        bandwidth, or (`efficient`) both at the shares the GPU's GEMMs reach (its profile)."""
        ratio = self.flops(precision) / self.hbm_bytes_per_s
        if not efficient:
            return ratio
        fit = self.kernels.for_format(self.kernels.gemm, precision, "GEMM")
        return ratio * fit.compute_efficiency / fit.memory_efficiency

    @property
    def ridge_flops_per_byte(self) -> float:
        """The GPU's own BF16 ridge: dense peak over peak bandwidth."""
        return self.ridge("bf16")

    @property
    def effective_ridge_flops_per_byte(self) -> float:
        """The BF16 ridge at the shares of peak its GEMMs reach."""
        return self.ridge("bf16", efficient=True)


def build_gpus(entries: Mapping[str, Mapping[str, Any]],
               profiles: Mapping[str, KernelProfile]) -> dict[str, Gpu]:
    """Every catalogue entry as a Gpu, with the kernel profile it names."""
    return {
        key: Gpu(
            key=key,
            name=entry["name"],
            dense_flops=dict(entry["dense_flops"]),
            hbm_bytes=entry["hbm_bytes"],
            hbm_bytes_per_s=entry["hbm_bytes_per_s"],
            scale_up_link=entry["scale_up_link"],
            scale_up_bytes_per_s=entry["scale_up_bytes_per_s"],
            scale_up_gpus=entry["scale_up_gpus"],
            topology=entry["topology"],
            host_link=entry["host_link"],
            host_link_bytes_per_s=entry["host_link_bytes_per_s"],
            scale_out_bytes_per_s=entry["scale_out_bytes_per_s"],
            kernels=profiles[entry["kernels"]],
            price_per_gpu_hour=entry.get("price_per_gpu_hour"),
            price_note=entry.get("price_note", ""),
        )
        for key, entry in entries.items()
    }
