"""The serving engine and its request stream: leaps over plain decode stretches change nothing a
reader is shown, every token is accounted for, admission respects the KV capacity, and the
arrivals and percentiles are what their docstrings say."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sims.physics import GPUS, MODELS, precision_for
from sims.serving import engine
from sims.serving.arrivals import (
    percentile,
    poisson_requests,
    weighted_percentile,
    weighted_quantiles,
)
from sims.serving.engine import (
    CONTEXT_BUCKET,
    Job,
    StepClock,
    prompt_slices,
    serve,
    step_clock,
)

GPU, MODEL = GPUS["h100"], MODELS["llama-3.1-8b"]


def clock() -> StepClock:
    return StepClock(GPU, MODEL, 1, precision_for(GPU, MODEL))


def jobs(rate: float, count: int = 60, prompt: int = 1024, output: int = 64) -> list[Job]:
    return [Job(r.index, r.arrival_s, prompt, prompt, output)
            for r in poisson_requests(rate, count, prompt, output)]


def stepwise(items: list[Job], steps: StepClock, budget: int, capacity: int
             ) -> tuple[dict[int, float], dict[int, float]]:
    """The same schedule one step at a time, every plain decode step priced at its own
    context: the reference the engine's leaps must agree with. First-token and finish
    times by request."""
    pending = sorted(items, key=lambda job: (job.ready_s, job.index))
    now, waiting, prefilling, first, finish = 0.0, [], [], {}, {}
    running: list[list[int]] = []  # [index, context, tokens still to come]
    while pending or waiting or prefilling or running:
        while pending and pending[0].ready_s <= now:
            waiting.append(pending.pop(0))
        while waiting and len(prefilling) + len(running) < capacity:
            prefilling.append(waiting.pop(0))
        if not prefilling and not running:
            now = pending[0].ready_s
            continue
        slices = prompt_slices(prefilling, budget)
        now += steps.step_s(len(running), sum(entry[1] for entry in running), tuple(slices))
        for entry in running:
            entry[1], entry[2] = entry[1] + 1, entry[2] - 1
            if not entry[2]:
                finish[entry[0]] = now
        running = [entry for entry in running if entry[2]]
        for take, _, last in slices:
            job = prefilling[0]
            job.to_prefill -= take
            if last:
                prefilling.pop(0)
                first[job.index] = now
                running.append([job.index, job.prompt_tokens, job.output_tokens - 1])
    return first, finish


def test_a_steps_prompt_slices_fill_the_budget_oldest_first() -> None:
    def job(index: int, prompt: int, left: int) -> Job:
        return Job(index, 0.0, prompt_tokens=prompt, to_prefill=left, output_tokens=1)

    prefilling = [job(0, 1000, 300), job(1, 800, 800), job(2, 500, 500)]
    assert prompt_slices(prefilling, 512) == [(300, 700, True), (212, 0, False)]
    assert prompt_slices(prefilling, 300) == [(300, 700, True)]  # the budget spent: no more
    assert prompt_slices(prefilling[1:], 2048) == [(800, 0, True), (500, 0, True)]


@pytest.mark.parametrize("rate", [0.5, 4.0, 16.0])
def test_leaping_over_plain_decode_steps_gives_the_first_tokens_of_stepping(rate: float) -> None:
    steps = clock()
    served = serve(jobs(rate), steps, 512, 64)
    first, finish = stepwise(jobs(rate), steps, 512, 64)
    assert set(served.first_token_s) == set(first) and set(served.finish_s) == set(finish)
    # Leaps price a stretch once (at its first step, or past CONTEXT_BUCKET steps at its
    # middle context): its end is off stepping's by the steps' small differences, a fraction
    # of a percent. An arrival that falls within that much of a step boundary joins one step
    # later (or earlier) than stepping has it, and its times move by that whole step (a
    # leap's steps all priced at the first's, while stepping's later ones crossed a context
    # bucket and ended a few tens of microseconds later). So each time is stepping's to the
    # pricing's fraction of a percent, or one plain decode step off.
    shortest, longest = steps.step_s(1, 0, ()), steps.step_s(64, 64 * (1024 + 64), ())
    for index in first:
        for leaped, stepped in ((served.first_token_s[index], first[index]),
                                (served.finish_s[index], finish[index])):
            off, pricing = abs(leaped - stepped), 2e-3 * stepped
            assert off <= pricing or shortest - pricing <= off <= longest + pricing, (
                index, leaped, stepped)


def test_every_token_of_every_reply_is_accounted_for() -> None:
    served = serve(jobs(8.0, output=100), clock(), 512, 64)
    assert sum(weight for _, weight in served.gaps) == 60 * 99  # the first token has no gap
    assert all(served.finish_s[i] > served.first_token_s[i] for i in served.first_token_s)


def test_a_one_sequence_cache_serves_requests_one_after_another() -> None:
    served = serve(jobs(50.0, count=10), clock(), 512, 1)
    order = sorted(served.first_token_s, key=served.first_token_s.get)
    assert order == list(range(10))
    for earlier, later in zip(order, order[1:], strict=False):
        assert served.first_token_s[later] > served.finish_s[earlier]


def test_a_prefill_only_instance_lets_requests_go_after_their_first_token() -> None:
    served = serve(jobs(8.0), clock(), 2048, 64, decode=False)
    assert served.first_token_s == served.finish_s and not served.gaps


def test_a_request_joining_from_elsewhere_counts_its_wait_in_its_first_gap() -> None:
    steps = clock()
    job = Job(0, ready_s=0.010, prompt_tokens=1024, to_prefill=0, output_tokens=3,
              last_token_s=0.004)
    served = serve([job], steps, 512, 8)
    step = steps.step_s(1, 1024, ())
    assert sorted(served.gaps) == sorted([(0.010 + step - 0.004, 1), (step, 2)])
    assert served.finish_s[0] == pytest.approx(0.010 + 3 * step)


def test_alone_a_prompt_takes_its_slices_and_nothing_else() -> None:
    steps = clock()
    served = serve([Job(0, 0.0, 1024, 1024, 1)], steps, 512, 8)
    expected = steps.step_s(0, 0, ((512, 0, False),)) + steps.step_s(0, 0, ((512, 512, True),))
    assert served.first_token_s[0] == pytest.approx(expected)


def test_a_decode_batch_is_priced_at_its_mean_context_to_the_bucket() -> None:
    steps = clock()
    assert steps.step_s(4, 4 * 990, ()) == steps.step_s(4, 4 * 1000, ())  # both 992
    assert steps.step_s(4, 4 * 1000, ()) < steps.step_s(4, 4 * (1000 + 2 * CONTEXT_BUCKET), ())


def test_an_instance_that_cannot_hold_a_sequence_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot hold one sequence"):
        serve(jobs(1.0), clock(), 512, 0)


def served_times(steps: StepClock, rate: float) -> tuple[dict[int, float], dict[int, float]]:
    served = serve(jobs(rate), steps, 512, 16)
    return served.first_token_s, served.finish_s


def test_a_clock_that_priced_other_runs_gives_the_times_a_new_clock_gives() -> None:
    shared = step_clock(GPU, MODEL, 1, precision_for(GPU, MODEL))
    assert shared is step_clock(GPU, MODEL, 1, precision_for(GPU, MODEL))  # one per shape
    for rate in (2.0, 8.0, 2.0, 30.0):
        assert served_times(shared, rate) == served_times(clock(), rate), rate


def test_a_run_the_clock_has_timed_before_prices_no_step(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    steps = clock()
    before = served_times(steps, 8.0)
    priced: list[tuple] = []
    monkeypatch.setattr(engine, "step_cost", lambda *args: priced.append(args))
    assert served_times(steps, 8.0) == before
    assert priced == []


def test_a_clock_keeps_at_most_its_bound_of_priced_steps(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(engine, "PRICED_KEPT", 40)
    steps = clock()
    times = served_times(steps, 8.0)
    assert 0 < len(steps._cache) <= 40
    assert times == served_times(clock(), 8.0)  # what it forgot, it prices again the same


# -- the arrivals --------------------------------------------------------------------------


def test_arrivals_are_poisson_at_the_rate() -> None:
    requests = poisson_requests(5.0, 20000, 1, 1)
    gaps = [b.arrival_s - a.arrival_s for a, b in zip(requests, requests[1:], strict=False)]
    assert statistics.fmean(gaps) == pytest.approx(1 / 5.0, rel=0.03)
    # Exponential gaps: the standard deviation equals the mean.
    assert statistics.pstdev(gaps) == pytest.approx(statistics.fmean(gaps), rel=0.05)


def test_arrivals_are_the_same_draw_every_time() -> None:
    assert poisson_requests(3.0, 50, 10, 10) == poisson_requests(3.0, 50, 10, 10)
    assert poisson_requests(3.0, 50, 10, 10) != poisson_requests(3.0, 50, 10, 10, seed=2)


def test_nearest_rank_percentiles_are_values_that_occurred() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert [percentile(values, q) for q in (0.2, 0.5, 0.99, 1.0)] == [1.0, 3.0, 5.0, 5.0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10), st.integers(1, 5)), min_size=1, max_size=30),
       st.sampled_from([0.01, 0.25, 0.5, 0.9, 0.99, 1.0]))
def test_weighted_percentiles_are_those_of_the_values_repeated(
    samples: list[tuple[float, int]], share: float
) -> None:
    repeated = [value for value, weight in samples for _ in range(weight)]
    assert weighted_percentile(samples, share) == percentile(repeated, share)
    shares = [0.1, 0.5, share] if share >= 0.5 else [share, 0.5, 0.9]
    assert weighted_quantiles(samples, shares) == [percentile(repeated, q) for q in shares]


def test_no_samples_have_no_percentile() -> None:
    with pytest.raises(ValueError):
        percentile([], 0.5)
    with pytest.raises(ValueError):
        weighted_percentile([], 0.5)
    assert math.isfinite(weighted_percentile([(2.0, 1)], 0.5))


def test_each_engine_gathers_tokens_for_its_experts_unless_its_rule_says_otherwise() -> None:
    from sims.serving.engines import ENGINES

    h200, nvl72 = GPUS["h200"], GPUS["gb200-nvl72"]
    maverick, deepseek = MODELS["llama-4-maverick"], MODELS["deepseek-v3"]
    trtllm = ENGINES["trtllm"]
    # TensorRT-LLM: all-to-all only across a multi-node NVLink domain, and only when the
    # experts are spread over more GPUs than a token picks (Maverick's 1 of 128).
    assert nvl72.scale_up_gpus > 8 >= h200.scale_up_gpus
    assert trtllm.exchange_on(nvl72, maverick, 4) == "all_to_all"
    assert trtllm.exchange_on(nvl72, deepseek, 8) == "gather"  # 8 GPUs, top-8
    assert trtllm.exchange_on(nvl72, deepseek, 16) == "all_to_all"
    assert trtllm.exchange_on(h200, maverick, 8) == "gather"
    # vLLM and SGLang gather by default, whatever the GPU.
    for key in ("vllm", "sglang"):
        assert ENGINES[key].exchange_on(nvl72, maverick, 4) == "gather"
