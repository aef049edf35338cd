"""A deployment's memory verdict: weights plus KV against what each GPU may use, with the
figures and the sentences sims show (memory_fit in sims.physics works the figures out)."""

from __future__ import annotations

from typing import NamedTuple


class MemoryFit(NamedTuple):
    """Whether weights plus KV fit on each GPU of a group, with the figures that decide it."""

    weights_per_gpu_bytes: float
    kv_per_gpu_bytes: float
    usable_per_gpu_bytes: float
    gpu_name: str

    @property
    def needed_per_gpu_bytes(self) -> float:
        return self.weights_per_gpu_bytes + self.kv_per_gpu_bytes

    @property
    def fits(self) -> bool:
        return self.needed_per_gpu_bytes <= self.usable_per_gpu_bytes

    @property
    def flag(self) -> str:
        """The note as a title suffix, " (does not fit: ...)"; empty when it fits."""
        return f" ({self.note})" if self.note else ""

    @property
    def note(self) -> str:
        """What a chart's subtitle says when the configuration does not fit; empty when it
        does (sims.kit.charts.titled)."""
        if self.fits:
            return ""
        return (f"does not fit: {self.needed_per_gpu_bytes / 1e9:.1f} of "
                f"{self.usable_per_gpu_bytes / 1e9:.1f} GB per GPU")

    @property
    def reason(self) -> str:
        """One sentence for the summary and the chart: fits or not, and the figures."""
        verdict = "fits" if self.fits else "does not fit"
        return (f"{verdict}: {self.needed_per_gpu_bytes / 1e9:.1f} GB per GPU (weights "
                f"{self.weights_per_gpu_bytes / 1e9:.1f} GB, KV cache "
                f"{self.kv_per_gpu_bytes / 1e9:.1f} GB) against "
                f"{self.usable_per_gpu_bytes / 1e9:.1f} GB usable on each {self.gpu_name}")
