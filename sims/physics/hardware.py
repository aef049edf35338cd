"""GPUs: the datasheet figures a step is priced with, built from the catalogue.

Every figure comes from content/catalogue/gpus/<key>.yaml (through sims/physics/catalogue_data.py)
with its source; nothing here holds a number of its own. Rates are dense: a datasheet rate
quoted with sparsity is halved in the catalogue and the source row says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sims.physics.collectives import Collectives, collectives_for, measured_fits
from sims.physics.precision import LABELS, PRECISIONS

# Fraction of peak a well-tuned engine sustains. Large GEMMs on Hopper and Ampere reach about
# 70% of dense peak (Vidur's measured Llama 3 8B linear layers on an A100 at 4,096 to 32,768
# tokens run at 66-75%; FlashAttention-3 reports 75% for attention); streaming weights and
# KV reaches about 80% of peak bandwidth. Both are assumptions of this model, stated on every
# page that uses them and held to measurements by the calibration table.
COMPUTE_EFFICIENCY = 0.7
MEMORY_EFFICIENCY = 0.8


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
    host_link: str | None  # e.g. "PCIe Gen5 x16"
    host_link_bytes_per_s: float | None  # one direction, bytes/s
    scale_out_bytes_per_s: float | None  # network per GPU, one direction, bytes/s
    collectives: Collectives

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
        bandwidth, or (`efficient`) both at this model's efficiencies."""
        ratio = self.flops(precision) / self.hbm_bytes_per_s
        return ratio * COMPUTE_EFFICIENCY / MEMORY_EFFICIENCY if efficient else ratio

    @property
    def ridge_flops_per_byte(self) -> float:
        """The GPU's own BF16 ridge: dense peak over peak bandwidth."""
        return self.ridge("bf16")

    @property
    def effective_ridge_flops_per_byte(self) -> float:
        """The BF16 ridge at the efficiencies this model assumes."""
        return self.ridge("bf16", efficient=True)


def build_gpus(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, Gpu]:
    """Every catalogue entry as a Gpu; a GPU without measurements takes the collectives of
    the measured GPU it names (`collectives_like`)."""
    gpus = {}
    for key, entry in entries.items():
        like = entry["collectives_like"]
        reference = None
        if like is not None:
            other = entries[like]
            reference = (measured_fits(other["all_reduce"]), other["scale_up_bytes_per_s"],
                         other["name"])
        gpus[key] = Gpu(
            key=key,
            name=entry["name"],
            dense_flops=dict(entry["dense_flops"]),
            hbm_bytes=entry["hbm_bytes"],
            hbm_bytes_per_s=entry["hbm_bytes_per_s"],
            scale_up_link=entry["scale_up_link"],
            scale_up_bytes_per_s=entry["scale_up_bytes_per_s"],
            scale_up_gpus=entry["scale_up_gpus"],
            host_link=entry["host_link"],
            host_link_bytes_per_s=entry["host_link_bytes_per_s"],
            scale_out_bytes_per_s=entry["scale_out_bytes_per_s"],
            collectives=collectives_for(entry["scale_up_gpus"], entry["scale_up_bytes_per_s"],
                                        entry["all_reduce"], reference),
        )
    return gpus
