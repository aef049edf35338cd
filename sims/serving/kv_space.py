"""The KV cache's room on a replica, and what it costs to give a sequence's room back.

Two sims run out of KV memory (goodput, kv_memory); this is the one place that works out
how much there is and what a preempted sequence costs, from the shared physics only:

- the room: each GPU's usable memory (`physics.USABLE_MEMORY_FRACTION` of HBM) less its
  share of the weights, as `physics.memory_fit` splits them;
- what a sequence holds, per GPU: each token adds the growing layers' K and V (or latent,
  or compressed entries) on top of a fixed share once its sliding windows and chunks are
  full (and the linear layers' states, which never grow), split over the group
  as `memory_fit` splits it (KV heads over the GPUs, a latent cache held whole by each);
- a preempted sequence's cost: recomputing it is a prefill of every token it held
  (`physics.prefill`); swapping it is its KV bytes out to host memory and back in over the
  GPU's host link (`physics.host_link_time`, at the link's full rate: an upper bound on the
  speed, which small blocks copied one by one do not reach).

Sizes are in bytes per GPU throughout: every GPU of a tensor-parallel group holds the same
share, so one GPU running out is the whole replica running out. Under data-parallel
attention ("ep") each GPU holds its own sequences whole, and the replica's room is its GPUs'
rooms side by side.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

from sims.physics import Gpu, Model, Precision, host_link_time, memory_fit, prefill

# A context long enough that every sliding window and chunk is full (the catalogue's largest
# is 128 tokens; Llama 4's chunks are 8,192), so that one token more adds only the growing
# layers' bytes; a model's own horizon when it is longer.
_PAST_WINDOWS = 1 << 16


class KvSpace(NamedTuple):
    """The KV cache's room on each GPU of one replica, and what a sequence takes of it."""

    weights_bytes: float  # per GPU
    usable_bytes: float  # per GPU: memory an engine lets itself use, less the weights
    bytes_per_token: float  # per GPU: what one more token of context adds
    window_bytes: float  # per GPU and sequence: full windows and chunks, linear states
    # (tokens, bytes) of that fixed share for a sequence of `tokens` tokens, at 0 and at the
    # end of each window and chunk, ascending: a sequence shorter than a window holds only
    # its own tokens there (a 2,000-token request under Llama 4's 8,192-token chunks holds
    # 2,000). Between two points the share grows linearly; past the last it is window_bytes.
    window_curve: tuple[tuple[int, float], ...] = ()

    @property
    def fits(self) -> bool:
        """Whether the weights leave any room for KV."""
        return self.usable_bytes > 0

    def window_bytes_at(self, tokens: int) -> float:
        """The fixed share a sequence of `tokens` tokens holds (its windows filled as far as
        it reaches)."""
        return along(self.window_curve, tokens, self.window_bytes)

    def sequence_bytes(self, tokens: int) -> float:
        """Bytes one sequence of `tokens` tokens holds."""
        return self.window_bytes_at(tokens) + tokens * self.bytes_per_token

    def reason(self, gpu_name: str) -> str:
        """One sentence for a summary: what the weights leave for KV on each GPU."""
        usable = self.usable_bytes + self.weights_bytes
        if not self.fits:
            return (f"does not fit: the weights take {self.weights_bytes / 1e9:.1f} GB of the "
                    f"{usable / 1e9:.1f} GB usable on each {gpu_name}, leaving no room for KV")
        return (f"the weights take {self.weights_bytes / 1e9:.1f} GB of the {usable / 1e9:.1f} "
                f"GB usable on each {gpu_name}, leaving {self.usable_bytes / 1e9:.1f} GB for KV"
                f" ({self.token_slots():,} tokens)")

    def token_slots(self) -> int:
        """Whole tokens of full-attention KV the room holds (0 if the weights fill it)."""
        return max(0, math.floor(self.usable_bytes / self.bytes_per_token))

    def window_slots(self, tokens: int | None = None) -> int:
        """The fixed share of one sequence of `tokens` tokens (None: one long enough to fill
        every window), in token slots (rounded up)."""
        held = self.window_bytes if tokens is None else self.window_bytes_at(tokens)
        return math.ceil(held / self.bytes_per_token)

    def window_slot_curve(self) -> tuple[tuple[int, int], ...]:
        """window_curve in token slots (rounded up): what a scheduler charges a sequence."""
        return tuple((tokens, math.ceil(held / self.bytes_per_token))
                     for tokens, held in self.window_curve)


def along(curve: tuple[tuple[int, float], ...], tokens: int, beyond: float) -> float:
    """A window curve's value at `tokens`: linear between its (tokens, value) points, which
    start at 0 and ascend, and `beyond` past the last (every window full)."""
    before = (0, beyond)
    for point in curve:
        if tokens <= point[0]:
            if point[0] == before[0]:
                return point[1]
            share = (tokens - before[0]) / (point[0] - before[0])
            return before[1] + share * (point[1] - before[1])
        before = point
    return beyond


@lru_cache(maxsize=64)
def kv_space(gpu: Gpu, model: Model, tp: int, precision: Precision,
             layout: str = "tp") -> KvSpace:
    """The room for KV on each GPU of `tp` GPUs serving `model` in `precision`, laid out as
    `layout` ("ep": each GPU holds whole sequences, so a token takes its full KV there).

    Kept per setup, as the step table is: it fits the model a few times over (about a
    millisecond natively), and a reader's change rarely touches the setup."""
    empty = memory_fit(gpu, model, 0, 0, tp, precision, layout)
    past = max(_PAST_WINDOWS, model.horizon)
    long = memory_fit(gpu, model, 1, past, tp, precision, layout)
    longer = memory_fit(gpu, model, 1, past + 1, tp, precision, layout)
    per_token = longer.kv_per_gpu_bytes - long.kv_per_gpu_bytes
    window = long.kv_per_gpu_bytes - past * per_token
    ends = sorted({0, *(kind.window for kind in model.kinds if kind.window)})
    curve = tuple(
        (end, max(0.0, memory_fit(gpu, model, 1, end, tp, precision, layout).kv_per_gpu_bytes
                  - end * per_token))
        for end in ends) if window > 0 else ()
    return KvSpace(
        weights_bytes=empty.weights_per_gpu_bytes,
        usable_bytes=empty.usable_per_gpu_bytes - empty.weights_per_gpu_bytes,
        bytes_per_token=per_token,
        window_bytes=max(0.0, window),
        window_curve=curve,
    )


def recompute_s(gpu: Gpu, model: Model, tokens: int, tp: int, precision: Precision) -> float:
    """Rebuilding a preempted sequence's cache: a prefill of the `tokens` it held."""
    return prefill(gpu, model, tokens, tp=tp, precision=precision).time_s


def swap_s(space: KvSpace, gpu: Gpu, tokens: int) -> float | None:
    """Copying a sequence's KV to host memory and back (each GPU its own share over its own
    link, in parallel); None when the catalogue gives the GPU no host link."""
    if gpu.host_link_bytes_per_s is None:
        return None
    return 2 * host_link_time(gpu, space.sequence_bytes(tokens))
