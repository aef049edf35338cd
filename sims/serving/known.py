"""What a run knows of its requests before it starts, whatever the rate (the scheduler's
starting point): one table for the runs of a sweep, which share their requests and policy."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from sims.kit import memo
from sims.serving.workload import Request

if TYPE_CHECKING:  # the scheduler imports this module
    from sims.serving.scheduler import Policy


class Known(NamedTuple):
    """What a run knows of its requests before it starts, whatever the rate: their arrivals
    at rate 1, prompts, answers, window shares (for the length each will reach) and
    whether each is refused (too long for the cache even alone)."""

    arrivals: list[float]
    prompts: list[int]
    outputs: list[int]
    windows: list[int]
    refused: list[bool]


@memo.kept(maxsize=4)
def known_requests(requests: tuple[Request, ...], policy: Policy) -> Known:
    """The requests' Known, made once for a sweep's runs (they share requests and policy,
    and a window share is a few microseconds a request). Only read."""
    windows = [policy.window_for(r.prompt_tokens + r.output_tokens) for r in requests]
    return Known(
        [r.arrival for r in requests], [r.prompt_tokens for r in requests],
        [r.output_tokens for r in requests], windows,
        [r.prompt_tokens + r.output_tokens + window > policy.kv_slots
         for r, window in zip(requests, windows, strict=True)])
