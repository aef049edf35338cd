"""The shared parts of the load sims: request draws, the KV room, the step table, the
replica's scheduler. Expectations come from the shared physics or from statistics, never
from step times typed in."""

from __future__ import annotations

import math
import random
from collections import deque

import numpy as np
import pytest

from sims.physics import (
    GPUS,
    MODELS,
    USABLE_MEMORY_FRACTION,
    Work,
    decode_step,
    precision_for,
    prefill,
    step_cost,
)
from sims.serving import workload
from sims.serving.kv_space import kv_space, recompute_s, swap_s
from sims.serving.replica import Policy, _steps_to_reach, serve
from sims.serving.step_table import GRID, StepTable
from sims.serving.workload import Request

H100, L8B = GPUS["h100"], MODELS["llama-3.1-8b"]
BF16 = precision_for(H100, L8B)


# -- requests ---------------------------------------------------------------------------

@pytest.mark.parametrize("spread", [0.5, 1.0, 2.0])
def test_lengths_have_the_mean_and_spread_asked_for(spread: float) -> None:
    rng = random.Random(3)
    draws = np.array([workload.lognormal(rng, 500, spread, 10**9) for _ in range(40000)])
    assert draws.mean() == pytest.approx(500, rel=0.04)
    assert draws.std() / draws.mean() == pytest.approx(spread, rel=0.15)


def test_spread_zero_makes_every_request_alike() -> None:
    drawn = workload.draw(50, 1, "poisson", 1000, 100, 0.0, 4096, 4096)
    assert {(r.prompt_tokens, r.output_tokens) for r in drawn} == {(1000, 100)}


def test_lengths_stay_within_one_token_and_the_cap() -> None:
    drawn = workload.draw(2000, 2, "poisson", 300, 300, 2.0, 900, 700)
    assert all(1 <= r.prompt_tokens <= 900 and 1 <= r.output_tokens <= 700 for r in drawn)


@pytest.mark.parametrize(("arrivals", "cv"), [("poisson", 1.0), ("bursty", workload.BURSTY_CV)])
def test_gaps_have_mean_one_and_the_stated_variability(arrivals: str, cv: float) -> None:
    rng = random.Random(5)
    gaps = np.array([workload.gap(rng, arrivals) for _ in range(200000)])
    assert gaps.mean() == pytest.approx(1.0, rel=0.03)
    assert gaps.std() / gaps.mean() == pytest.approx(cv, rel=0.06)


def test_percentile_is_numpys_linear_interpolation() -> None:
    values = sorted(random.Random(1).random() for _ in range(137))
    for share in (0.0, 0.5, 0.9, 0.99, 1.0):
        assert workload.percentile(values, share) == pytest.approx(
            float(np.percentile(values, share * 100)), rel=1e-12)


# -- the KV room ------------------------------------------------------------------------

@pytest.mark.parametrize(("model", "tp"), [("llama-3.1-8b", 1), ("llama-3.1-70b", 4),
                                           ("llama-3.1-70b", 8), ("deepseek-v3", 8),
                                           ("gpt-oss-120b", 2)])
def test_the_room_is_usable_memory_less_the_weights_split_as_the_physics_splits(
    model: str, tp: int
) -> None:
    gpu, shape = GPUS["h200"], MODELS[model]
    precision = precision_for(gpu, shape)
    space = kv_space(gpu, shape, tp, precision)
    assert space.usable_bytes == pytest.approx(
        gpu.hbm_bytes * USABLE_MEMORY_FRACTION - shape.weight_bytes(precision) / tp, rel=1e-9)
    split = 1 if shape.latent else min(tp, shape.kv_heads)  # a latent cache is held whole
    assert space.bytes_per_token == pytest.approx(shape.kv_bytes_per_token("bf16") / split)
    assert space.window_bytes == pytest.approx(shape.kv_constant_bytes("bf16") / split)


def test_fp8_kv_halves_the_bytes_per_token_and_doubles_the_tokens() -> None:
    bf16 = kv_space(H100, L8B, 1, BF16)
    fp8 = kv_space(H100, L8B, 1, precision_for(H100, L8B, kv="fp8"))
    assert fp8.bytes_per_token * 2 == bf16.bytes_per_token
    assert abs(fp8.token_slots() - 2 * bf16.token_slots()) <= 1


def test_weights_that_fill_the_gpu_leave_no_room() -> None:
    shape = MODELS["deepseek-v3"]
    space = kv_space(GPUS["a100"], shape, 1, precision_for(GPUS["a100"], shape))
    assert not space.fits and space.token_slots() == 0
    assert "leaving no room" in space.reason("A100")


def test_recompute_is_a_prefill_and_a_swap_is_the_bytes_twice_over_the_host_link() -> None:
    space = kv_space(H100, L8B, 1, BF16)
    assert recompute_s(H100, L8B, 3000, 1, BF16) == prefill(H100, L8B, 3000).time_s
    assert swap_s(space, H100, 3000) == pytest.approx(
        2 * 3000 * space.bytes_per_token / H100.host_link_bytes_per_s)
    assert swap_s(space, GPUS["b200"], 3000) is None  # the catalogue gives it no host link


# -- the step table ---------------------------------------------------------------------

SETUPS = [("h100", "llama-3.1-8b", 1), ("h200", "llama-3.1-70b", 2), ("h200", "deepseek-v3", 8),
          ("h100", "gpt-oss-120b", 1), ("h100", "qwen3-30b-a3b", 1)]


@pytest.mark.parametrize(("gpu", "model", "tp"), SETUPS)
def test_the_table_stays_within_a_few_percent_of_step_cost(gpu: str, model: str, tp: int
                                                           ) -> None:
    chip, shape = GPUS[gpu], MODELS[model]
    precision = precision_for(chip, shape)
    table = StepTable(chip, shape, tp, precision)
    rng = random.Random(11)
    errors = []
    for _ in range(150):
        contexts = [rng.randint(1, 8000) for _ in range(rng.choice([0, 1, 3, 10, 40, 150]))]
        chunks = [(rng.randint(1, 2000), rng.choice([0, rng.randint(0, 8000)]))
                  for _ in range(rng.choice([0, 1, 1, 2, 3]) if contexts else 1)]
        work = [Work(1, c) for c in contexts] + [Work(q, d, logit_tokens=1) for q, d in chunks]
        exact = step_cost(chip, shape, work, tp, precision).time_s
        tokens = sum(q for q, _ in chunks)
        reach = sum(q * d for q, d in chunks) - (tokens**2 - sum(q * q for q, _ in chunks)) / 2
        errors.append(abs(table.time_s(len(contexts), sum(contexts), tokens, reach) / exact - 1))
    assert max(errors) < 0.04 and sorted(errors)[len(errors) // 2] < 0.005


@pytest.mark.parametrize("decodes", [1, 16, 256])
def test_the_table_is_exact_where_it_was_priced(decodes: int) -> None:
    assert decodes in GRID
    table = StepTable(H100, L8B, 1, BF16)
    assert table.time_s(decodes, decodes * 1024) == pytest.approx(
        decode_step(H100, L8B, decodes, 1024).time_s, rel=1e-12)


def test_runs_in_closed_form_are_the_sums_of_their_steps() -> None:
    table = StepTable(H100, L8B, 1, BF16)
    decodes, context, chunk, done, steps = 37, 37 * 2000, 300, 1200, 9
    assert table.decode_run_s(decodes, context, steps) == pytest.approx(
        sum(table.time_s(decodes, context + decodes * j) for j in range(steps)), rel=1e-12)
    assert table.chunk_run_s(decodes, context, chunk, done, steps) == pytest.approx(
        sum(table.time_s(decodes, context + decodes * j, chunk, chunk * (done + chunk * j))
            for j in range(steps)), rel=1e-12)


def test_a_step_outside_the_grid_is_refused() -> None:
    with pytest.raises(ValueError, match="grid"):
        StepTable(H100, L8B, 1, BF16).time_s(GRID[-1], 0)


@pytest.mark.parametrize(("gap", "first", "growth"), [(0.5, 1.0, 0.1), (10.0, 1.0, 0.0),
                                                      (10.0, 1.0, 0.5), (1e-3, 1e-4, 1e-6)])
def test_steps_to_reach_is_the_fewest_steps_that_cover_the_gap(gap: float, first: float,
                                                               growth: float) -> None:
    steps = _steps_to_reach(gap, first, growth)
    def covered(j: int) -> float:
        return j * first + growth * j * (j - 1) / 2
    assert covered(steps) >= gap * (1 - 1e-12)
    assert steps == 1 or covered(steps - 1) < gap


# -- the scheduler ----------------------------------------------------------------------

def _policy(chunked: bool = True, budget: int = 2048, slots: int = 10**6) -> Policy:
    return Policy(budget, 256, slots, 0, chunked)


def test_a_lone_request_gets_its_prefill_then_one_decode_step_per_token() -> None:
    table = StepTable(H100, L8B, 1, BF16)
    served = serve([Request(0.0, 1000, 50)], _policy(), table)
    assert served.first_token[0] == pytest.approx(table.time_s(0, 0, 1000, 0.0))
    decoding = table.decode_run_s(1, 1000, 49)
    assert served.finished[0] - served.first_token[0] == pytest.approx(decoding, rel=1e-12)
    assert served.preemptions == 0 and served.steps == 50


def test_a_long_prompt_is_cut_into_chunks_of_the_budget() -> None:
    table = StepTable(H100, L8B, 1, BF16)
    served = serve([Request(0.0, 5000, 1)], _policy(budget=2048), table)
    expected = sum(table.time_s(0, 0, size, size * done) for size, done in
                   ((2048, 0), (2048, 2048), (904, 4096)))
    assert served.first_token[0] == pytest.approx(expected, rel=1e-12)
    assert served.steps == 3


def test_prefill_first_pauses_the_decodes_and_chunking_does_not() -> None:
    """A long prompt arrives while another request decodes: prefill-first runs it as steps
    of its own, so the decoding request's tokens wait; chunked runs it beside them."""
    table = StepTable(H100, L8B, 1, BF16)
    requests = [Request(0.0, 100, 400), Request(0.5, 16000, 2)]
    alone, chunked = (serve(requests, _policy(chunked=flag, budget=16384), table)
                      for flag in (False, True))
    assert chunked.finished[0] < alone.finished[0]
    assert chunked.first_token[1] > alone.first_token[1]


def test_when_memory_runs_out_the_newest_request_is_preempted_and_still_finishes() -> None:
    table = StepTable(H100, L8B, 1, BF16)
    requests = [Request(0.0, 500, 600), Request(0.0, 500, 600), Request(0.0, 500, 600)]
    served = serve(requests, _policy(slots=2600), table)
    assert served.preemptions >= 1
    assert all(f > t > 0 for f, t in zip(served.finished, served.first_token, strict=True))
    # Each request produced all of its tokens: never fewer steps than the longest needs.
    assert served.steps >= 600


def test_a_request_that_cannot_fit_even_alone_is_refused() -> None:
    table = StepTable(H100, L8B, 1, BF16)
    served = serve([Request(0.0, 900, 200), Request(0.1, 10, 10)], _policy(slots=1000), table)
    assert served.refused == [True, False]
    assert served.finished[0] == -1 and served.finished[1] > 0


def test_a_faster_rate_only_compresses_the_arrivals() -> None:
    table = StepTable(H100, L8B, 1, BF16)
    requests = [Request(i * 10.0, 200, 20) for i in range(5)]
    slow, fast = serve(requests, _policy(), table), serve(requests, _policy(), table, rate=2)
    waits = [t - r.arrival for t, r in zip(slow.first_token, requests, strict=True)]
    assert [t - r.arrival / 2 for t, r in zip(fast.first_token, requests, strict=True)] == \
        pytest.approx(waits)
    assert math.isclose(slow.busy_s, fast.busy_s, rel_tol=1e-12)


def _one_step_at_a_time(requests: list[Request], policy: Policy, table: StepTable,
                        rate: float) -> tuple[list[float], list[float], int, int]:
    """The scheduler the serving module describes, run one step at a time with nothing
    leapt over: first-token and finish times, preemptions and steps. The replica leaps
    over runs of alike steps (decodes, chunks of one prompt, a full cache's preemptions);
    this is what it must agree with."""
    count, window, slots = len(requests), policy.window_slots, policy.kv_slots
    arrivals = [r.arrival / rate for r in requests]
    refused = [r.prompt_tokens + r.output_tokens + window > slots for r in requests]
    first, finished = [-1.0] * count, [-1.0] * count
    to_prefill = [r.prompt_tokens for r in requests]  # prompt, or all it held if preempted
    done = [0] * count  # of to_prefill, computed
    context = [0] * count  # a decoding request's cached tokens
    left = [r.output_tokens for r in requests]  # tokens still to come
    waiting: deque[int] = deque()
    admitted: list[int] = []  # prefilling or decoding, in order of admission
    decoding: set[int] = set()
    limit = min(policy.max_batch, policy.token_budget)
    now, arrived, preemptions, steps = 0.0, 0, 0, 0

    def used() -> int:
        return sum(context[i] if i in decoding else to_prefill[i] for i in admitted) + \
            window * len(admitted)

    def admit(growth: int) -> int | None:
        if not waiting or len(admitted) >= limit:
            return None
        head = waiting[0]
        if used() + growth + to_prefill[head] + window > slots:
            return None
        admitted.append(waiting.popleft())
        done[head] = 0
        return head

    def step(decodes: list[int], chunks: list[tuple[int, int]]) -> None:
        nonlocal now, steps
        tokens = sum(take for _, take in chunks)
        reach = sum(take * done[i] for i, take in chunks) - (
            tokens * tokens - sum(take * take for _, take in chunks)) / 2
        now += table.time_s(len(decodes), sum(context[i] for i in decodes), tokens, reach)
        steps += 1
        for i in decodes:
            context[i] += 1
            left[i] -= 1
            if not left[i]:
                decoding.discard(i)
                admitted.remove(i)
                finished[i] = now
        for i, take in chunks:
            done[i] += take
            if done[i] == to_prefill[i]:  # the prompt's last chunk: a token comes out
                left[i] -= 1
                if first[i] < 0:
                    first[i] = now
                if left[i]:
                    decoding.add(i)
                    context[i] = to_prefill[i]
                else:
                    admitted.remove(i)
                    finished[i] = now

    while True:
        while arrived < count and arrivals[arrived] <= now:
            if not refused[arrived]:
                waiting.append(arrived)
            arrived += 1
        if not admitted and not waiting:
            if arrived == count:
                return first, finished, preemptions, steps
            now = arrivals[arrived]
            continue
        if not policy.chunked and waiting:
            chunks, budget = [], policy.token_budget
            while waiting and (not chunks or to_prefill[waiting[0]] <= budget):
                head = admit(0)
                if head is None:
                    break
                chunks.append((head, to_prefill[head]))
                budget -= to_prefill[head]
            if chunks:
                step([], chunks)
                continue
        while admitted and used() + len(decoding) > slots:  # preempt the newest
            victim = admitted.pop()
            if victim in decoding:
                decoding.discard(victim)
                to_prefill[victim] = context[victim] + 1
            waiting.appendleft(victim)
            preemptions += 1
        decodes = [i for i in admitted if i in decoding]
        chunks = []
        if policy.chunked:
            budget = policy.token_budget - len(decodes)
            for i in admitted:
                if i not in decoding and budget > 0:
                    chunks.append((i, min(budget, to_prefill[i] - done[i])))
                    budget -= chunks[-1][1]
            while budget > 0 and (head := admit(len(decodes))) is not None:
                chunks.append((head, min(budget, to_prefill[head])))
                budget -= chunks[-1][1]
        step(decodes, chunks)


@pytest.mark.parametrize("chunked", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_the_replica_agrees_with_its_scheduler_run_one_step_at_a_time(chunked: bool,
                                                                      seed: int) -> None:
    """Past saturation, with a cache that holds a few requests (and, every other seed, a
    batch of at most four): preemption after preemption, runs of decodes broken by
    arrivals, long prompts in chunks, sliding windows or none. Every leap the replica takes
    must land where single steps do."""
    table = StepTable(H100, L8B, 1, BF16)
    rng = random.Random(seed)
    requests = sorted(Request(rng.uniform(0, 40), rng.choice([16, 32, 1500]),
                              rng.randint(200, 1500)) for _ in range(80))
    policy = Policy(512, (4, 256)[seed % 2], 4000, 16 * (seed // 2), chunked)
    preempted = []
    for rate in (1.0, 8.0):
        served = serve(requests, policy, table, rate)
        first, finished, preemptions, steps = _one_step_at_a_time(requests, policy, table, rate)
        assert (served.preemptions, served.steps) == (preemptions, steps)
        assert served.first_token == pytest.approx(first, rel=1e-9)
        assert served.finished == pytest.approx(finished, rel=1e-9)
        preempted.append(preemptions)
    assert min(preempted) >= 20  # the full cache's leaps were taken, and agreed
