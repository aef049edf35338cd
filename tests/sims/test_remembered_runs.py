"""The load sims keep their runs (sims.kit.memo: sims.serving.rate_sweep._measured, sims.kv_memory's
_paged and _contiguous, sims.serving.workload.draw): a reader's change that leaves a run's inputs
alone reuses it. What is checked: every result made with kept runs is the result a fresh
process makes, and the changes the pages are about (goodput's arrival rate and SLO,
kv_memory's allocator) run no more than their docstrings say."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import _lru_cache_wrapper
from typing import Any

import pytest

import sims
from sims import kv_memory
from sims.kit import memo
from sims.kit.contract import Choice, Number, Text, defaults
from sims.serving import rate_sweep

LOAD_SIMS = ("goodput", "kv_memory")


def one_step(spec: Number | Choice | Text) -> Any:
    """The value a reader's one-step move gives (the next choice, or one step up or down; a
    text stays as it is)."""
    if isinstance(spec, Text):
        return spec.default
    if isinstance(spec, Choice):
        return next(choice for choice in spec.choices if choice != spec.default)
    return spec.default + spec.step if spec.default + spec.step <= spec.max \
        else spec.default - spec.step


def walk(module: str) -> Iterator[dict[str, Any]]:
    """The inputs of a reader's session: each input moved one step and back, in page order."""
    base = defaults(sims.load(module).INPUTS)
    yield base
    for spec in sims.load(module).INPUTS:
        yield {**base, spec.name: one_step(spec)}
        yield base


def fresh(simulate: Callable[..., dict], inputs: dict[str, Any]) -> Any:
    memo.forget()
    try:
        return simulate(**inputs)
    except ValueError as error:
        return str(error)


@pytest.mark.parametrize("module", LOAD_SIMS)
def test_a_remembered_run_gives_the_result_a_fresh_process_gives(module: str) -> None:
    simulate = sims.load(module).simulate
    memo.forget()
    remembered = []
    for inputs in walk(module):
        try:
            remembered.append(simulate(**inputs))
        except ValueError as error:
            remembered.append(str(error))
    expected = [fresh(simulate, inputs) for inputs in walk(module)]
    differ = [inputs for inputs, got, want in zip(walk(module), remembered, expected,
                                                  strict=True) if got != want]
    assert differ == []


def misses(run: Callable[[], Any], cache: _lru_cache_wrapper) -> int:
    before = cache.cache_info().misses
    run()
    return cache.cache_info().misses - before


def test_goodput_serves_one_run_for_a_new_rate_and_none_for_an_slo() -> None:
    simulate = sims.load("goodput").simulate
    memo.forget()
    served = rate_sweep._measured
    assert misses(simulate, served) == rate_sweep.RATE_POINTS + 1  # the sweep and the rate
    assert misses(lambda: simulate(request_rate=12.5), served) == 1
    assert misses(lambda: simulate(slo_ttft_s=1.0, slo_tpot_s=0.1, slo_target=0.8), served) == 0
    assert misses(simulate, served) == 0  # back to the start
    assert misses(lambda: simulate(seed=2), served) == rate_sweep.RATE_POINTS + 1


def test_kv_memory_runs_nothing_again_for_the_allocator_or_the_preemption_cost() -> None:
    simulate = sims.load("kv_memory").simulate
    memo.forget()
    simulate()
    for change in ({"allocator": "contiguous"}, {"preemption": "swap"}, {"block_size": "64"}, {}):
        assert misses(lambda change=change: simulate(**change), kv_memory._paged) == 0, change
        assert misses(lambda change=change: simulate(**change), kv_memory._contiguous) == 0
    assert misses(lambda: simulate(block_size="32"), kv_memory._paged) == 1  # off the sweep
    assert misses(lambda: simulate(seed=2), kv_memory._paged) == len(kv_memory.BLOCK_SWEEP)
