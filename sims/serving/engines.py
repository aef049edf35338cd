"""Serving engines as the catalogue describes them (content/catalogue/engines/, through the
generated sims/physics/catalogue_data.py): how each admits requests, its default token
budget and batch limit, the all-reduce it runs, how it moves tokens to experts spread over
the GPUs, and the time it adds to steps and requests.
"""

from __future__ import annotations

from typing import NamedTuple

from sims.physics import Gpu, Model, catalogue_data
from sims.physics.profile import Errors
from sims.serving.step_table import StepOverhead

# The most GPUs one server holds on its own NVLink switches (DGX and HGX: 8); a larger domain
# spans nodes (multi-node NVLink, MNNVL).
MAX_NODE_GPUS = 8


class Engine(NamedTuple):
    """One engine family's profile, in base units."""

    key: str
    name: str
    admission: str  # preempt (recompute when the cache runs out) | reserve (never evict)
    token_budget: int  # per attention rank
    max_batch: int  # per attention rank
    graph_max_batch: int
    all_reduce: str  # custom | nccl
    expert_exchange: str  # gather | all_to_all | auto (see exchange_on)
    graph_overhead_s: float
    eager_overhead_s: float
    request_overhead_s: float
    accuracy: dict[tuple[str, str], Errors]  # (metric, "training" | "held_out"): errors

    def all_reduce_on(self, gpu: Gpu) -> str:
        """The all-reduce it runs on `gpu`: its own kernels (custom) where the GPU's profile
        has them measured, NCCL where it does not (the engine would run its kernels there
        too, but no measurement prices them: NCCL's is the nearest measured)."""
        if self.all_reduce == "custom" and "custom" not in gpu.kernels.all_reduce:
            return "nccl"
        return self.all_reduce

    def exchange_on(self, gpu: Gpu, model: Model, ranks: int) -> str:
        """How an expert-parallel step of `model` over `ranks` GPUs moves its tokens
        (sims.physics.pricing.EXCHANGES). "auto" is TensorRT-LLM's rule: all-to-all only
        where the GPUs share a multi-node NVLink domain (the catalogue's domains of more
        than 8 GPUs, GB200 and GB300 NVL72) and the experts are spread over more GPUs than
        a token picks; every rank's tokens gathered otherwise."""
        if self.expert_exchange != "auto":
            return self.expert_exchange
        multi_node_nvlink = gpu.scale_up_gpus > MAX_NODE_GPUS
        if multi_node_nvlink and ranks > model.experts_per_token:
            return "all_to_all"
        return "gather"

    @property
    def step_overhead(self) -> StepOverhead:
        """What it adds to each step, for the step table."""
        return StepOverhead(self.graph_overhead_s, self.eager_overhead_s, self.graph_max_batch)


def _engine(key: str, data: dict) -> Engine:
    accuracy = {(metric, chosen): Errors(*figures)
                for metric, sets in data["accuracy"].items() for chosen, figures in sets.items()}
    fields = {name: value for name, value in data.items() if name != "accuracy"}
    return Engine(key=key, accuracy=accuracy, **fields)


def build_engines(data: dict[str, dict]) -> dict[str, Engine]:
    """Every engine of catalogue_data.ENGINES (or data of its shape) as an Engine."""
    return {key: _engine(key, fields) for key, fields in data.items()}


ENGINES: dict[str, Engine] = build_engines(catalogue_data.ENGINES)
