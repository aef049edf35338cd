"""Collectives between GPUs of one scale-up domain: all-reduce by implementation and
algorithm, all-to-all, point to point, each from the links the GPUs have and the GPU's
kernel profile.

An all-reduce of S bytes over n GPUs runs one of its implementation's algorithms: a fixed
latency (launch, synchronisation, the links' latency: the profile's, per n) plus the traffic
the algorithm puts on each GPU's links (sims.physics.profile.TRAFFIC: (n - 1) S for a
one-shot kernel that reads every peer's message, 2(n - 1)/n S for a ring or two-shot, S for
a reduction in the switch) at its share of the per-GPU link bandwidth. The library or the
engine picks the algorithm by size; the model takes the fastest, and a reduction in the
switch only where there is a switch. The per-GPU link bandwidth is the GPU's scale-up
bandwidth on a switch (NVSwitch: any GPU reaches any other at its full rate), and on a full
mesh (MI300X's Infinity Fabric: one link to each peer) the n - 1 links to the others of the
group, so that two GPUs of a mesh share a single link.

Implementations: `nccl` (the collective library, its own choice of algorithm), `nvls` (NCCL
with NVLink SHARP forced, as nccl-tests can be run), and where the profile has one, `custom`:
the one-shot and two-shot kernels engines use (TensorRT-LLM's, vLLM's). `auto`, what engines
do, takes custom where the profile has it. All-to-all, all-gather, reduce-scatter and sends
use NCCL's ring latency and share of the links.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sims.physics.profile import TRAFFIC

if TYPE_CHECKING:
    from sims.physics.hardware import Gpu
    from sims.physics.profile import AllReduceAlgorithm

IMPLEMENTATIONS = ("auto", "nccl", "custom", "nvls")


def link_bytes_per_s(gpu: Gpu, group: int) -> float:
    """One GPU's bandwidth (one direction) to the others of a group of `group` GPUs."""
    if gpu.topology == "mesh":
        return gpu.scale_up_bytes_per_s / (gpu.scale_up_gpus - 1) * (group - 1)
    return gpu.scale_up_bytes_per_s


def _latency(algorithm: AllReduceAlgorithm, group: int) -> float:
    """The algorithm's latency at `group` GPUs: interpolated on log2(n) between the nearest
    fitted sizes, the nearest outside them."""
    fitted = algorithm.latency_s
    sizes = sorted(fitted)
    below = max([n for n in sizes if n <= group], default=sizes[0])
    above = min([n for n in sizes if n >= group], default=sizes[-1])
    if below == above:
        return fitted[below]
    low, high = fitted[below], fitted[above]
    weight = (group.bit_length() - 1 - (below.bit_length() - 1)) / (
        (above.bit_length() - 1) - (below.bit_length() - 1))
    return low + weight * (high - low)


def allreduce_implementation(gpu: Gpu, implementation: str = "auto") -> str:
    """The implementation that runs: custom kernels when asked for or (auto) when the
    profile has them, NCCL otherwise (nvls: NCCL's in-switch algorithm alone)."""
    fits = gpu.kernels.all_reduce
    if implementation == "custom" and "custom" not in fits:
        raise ValueError(f"the {gpu.name} has no custom all-reduce in its profile")
    if implementation == "auto":
        return "custom" if "custom" in fits else "nccl"
    return implementation


def _algorithms(gpu: Gpu, implementation: str) -> list[AllReduceAlgorithm]:
    """The algorithms an implementation may pick among on this GPU's links."""
    chosen = allreduce_implementation(gpu, implementation)
    fit = gpu.kernels.all_reduce["nccl" if chosen == "nvls" else chosen]
    usable = [a for a in fit.algorithms if a.traffic != "in_switch" or gpu.topology == "switch"]
    if chosen == "nvls":
        usable = [a for a in usable if a.traffic == "in_switch"]
        if not usable:
            raise ValueError(f"the {gpu.name} has no in-switch all-reduce (NVLink SHARP)")
    return usable


def _time(algorithm: AllReduceAlgorithm, gpu: Gpu, message_bytes: float, group: int) -> float:
    traffic = TRAFFIC[algorithm.traffic](group) * message_bytes
    rate = algorithm.bus_efficiency * link_bytes_per_s(gpu, group)
    return _latency(algorithm, group) + traffic / rate


def allreduce_fit(gpu: Gpu, message_bytes: float, group: int, implementation: str = "auto"
                  ) -> tuple[float, float]:
    """The algorithm that runs for this message (the fastest its implementation has), as
    (its fixed latency in s, the message bytes per second beyond it)."""
    best = min(_algorithms(gpu, implementation),
               key=lambda algorithm: _time(algorithm, gpu, message_bytes, group))
    rate = best.bus_efficiency * link_bytes_per_s(gpu, group) / TRAFFIC[best.traffic](group)
    return _latency(best, group), rate


def allreduce_time(gpu: Gpu, message_bytes: float, group: int,
                   implementation: str = "auto") -> float:
    """One all-reduce of `message_bytes` over `group` GPUs (nothing to agree on alone)."""
    if group == 1:
        return 0.0
    return min(_time(algorithm, gpu, message_bytes, group)
               for algorithm in _algorithms(gpu, implementation))


def _ring(gpu: Gpu) -> AllReduceAlgorithm:
    """NCCL's ring: the latency and share of the links its point-to-point traffic gets."""
    return next(a for a in gpu.kernels.all_reduce["nccl"].algorithms if a.traffic == "ring")


def all_to_all_time(gpu: Gpu, bytes_per_gpu: float, group: int) -> float:
    """One all-to-all in which each of `group` GPUs sends `bytes_per_gpu`, (n-1)/n of it to
    the others: NCCL's ring latency plus that traffic at its share of the links."""
    if group == 1:
        return 0.0
    ring = _ring(gpu)
    rate = ring.bus_efficiency * link_bytes_per_s(gpu, group)
    return _latency(ring, group) + (group - 1) / group * bytes_per_gpu / rate


def all_gather_time(gpu: Gpu, total_bytes: float, group: int) -> float:
    """One all-gather over `group` GPUs that ends with `total_bytes` on every GPU (each
    brought its 1/n and receives the other (n-1)/n), or one reduce-scatter of `total_bytes`
    on every GPU (each sends (n-1)/n of it away and keeps its reduced 1/n): NCCL's ring
    latency plus that traffic at its share of the links."""
    return all_to_all_time(gpu, total_bytes, group)


def p2p_time(gpu: Gpu, message_bytes: float) -> float:
    """A send from one GPU to another of its domain (between pipeline stages)."""
    ring = _ring(gpu)
    return _latency(ring, 2) + message_bytes / (ring.bus_efficiency * link_bytes_per_s(gpu, 2))
