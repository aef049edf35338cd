"""Batching: static against continuous on the same requests, checked for behaviour, against
a plain step-by-step reference, and against the figures the explainer derives by hand."""

from __future__ import annotations

import random

import pytest
from explainer_pages import hand_priced, hardware_claims, rendered, total_s
from hypothesis import given, settings
from hypothesis import strategies as st

from sims import batching
from sims.batching import schedule
from sims.physics import GPUS, MODELS, Work, step_cost
from tests.repo import LAYOUT
from tests.sims.explainer_pages import opens_at_the_defaults

PAGE = LAYOUT.content / "explainers" / "batching.md"
GPU, MODEL = GPUS["h100"], MODELS["llama-3.1-8b"]  # the sim's defaults


def price(work: list[Work]) -> float:
    return step_cost(GPU, MODEL, work).time_s


def _lengths(result: dict) -> list[int]:
    return [row["output_tokens"] for row in result["tables"][0]["rows"]]


def reference(policy: str, lengths: list[int], batch_size: int, prompt: int) -> dict:
    """The same policy simulated one step at a time, each step priced on its own."""
    queue = list(range(len(lengths)))
    slots: list[list[int] | None] = [None] * batch_size  # [request, tokens generated]
    finish_step = [0] * len(lengths)
    finish_s = [0.0] * len(lengths)
    step, clock, idle = 0, 0.0, 0
    while queue or any(slots):
        if policy == "continuous" or not any(slots):
            for i, slot in enumerate(slots):
                if slot is None and queue:
                    slots[i] = [queue.pop(0), 0]
        work = [
            Work(prompt, 0, logit_tokens=1) if s[1] == 0 else Work(1, prompt + s[1] - 1)
            for s in slots if s is not None
        ]
        clock += step_cost(GPU, MODEL, work).time_s
        idle += slots.count(None)
        step += 1
        for i, slot in enumerate(slots):
            if slot is not None:
                slot[1] += 1
                if slot[1] == lengths[slot[0]]:
                    finish_step[slot[0]], finish_s[slot[0]] = step, clock
                    slots[i] = None
    return {"steps": step, "clock": clock, "idle": idle, "finish_step": finish_step,
            "finish_s": finish_s}


@pytest.mark.parametrize("policy", ["static", "continuous"])
@pytest.mark.parametrize(("batch_size", "prompt"), [(1, 16), (3, 512), (4, 512), (8, 2048)])
def test_event_schedule_matches_a_step_by_step_reference(
    policy: str, batch_size: int, prompt: int
) -> None:
    lengths = [random.Random(batch_size).randint(1, 60) for _ in range(11)]
    fast = schedule(policy, lengths, batch_size, prompt, price)
    slow = reference(policy, lengths, batch_size, prompt)
    assert fast.steps == slow["steps"]
    assert fast.idle_slot_steps == slow["idle"]
    # A run of steps is summed as the mean of its first and last times its length: the
    # per-operator price is nearly linear in the context, within 0.1% over a run.
    assert fast.makespan_s == pytest.approx(slow["clock"], rel=1e-3)
    assert fast.finish_s == pytest.approx(slow["finish_s"], rel=1e-3)


inputs = st.fixed_dictionaries({
    "requests": st.integers(1, 64),
    "batch_size": st.integers(1, 32),
    "min_output_tokens": st.integers(1, 300),
    "spread": st.integers(0, 700),
    "prompt_tokens": st.sampled_from([1, 64, 512, 4096]),
    "seed": st.integers(0, 999),
})


@settings(max_examples=60, deadline=None)
@given(inputs)
def test_continuous_never_finishes_later_than_static(case: dict) -> None:
    spread = case.pop("spread")
    case["max_output_tokens"] = min(1024, case["min_output_tokens"] + spread)
    summary = batching.simulate(**case)["summary"]
    assert summary["continuous_steps"] <= summary["static_steps"]
    assert summary["continuous_makespan_s"] <= summary["static_makespan_s"]
    assert summary["continuous_idle_fraction"] <= summary["static_idle_fraction"]


def test_every_request_gets_its_last_token_no_later_in_steps() -> None:
    lengths = [random.Random(3).randint(5, 400) for _ in range(30)]
    static = reference("static", lengths, 6, 256)
    continuous = reference("continuous", lengths, 6, 256)
    assert all(c <= s for c, s in zip(continuous["finish_step"], static["finish_step"],
                                      strict=True))


def test_equal_answers_make_the_policies_identical() -> None:
    result = batching.simulate(requests=12, batch_size=4, min_output_tokens=100,
                               max_output_tokens=100)
    summary = result["summary"]
    for metric in ("makespan_s", "mean_latency_s", "idle_fraction", "steps"):
        assert summary[f"static_{metric}"] == summary[f"continuous_{metric}"]
    assert summary["static_idle_fraction"] == 0.0  # 12 requests fill 4 slots exactly


def test_one_slot_leaves_nothing_idle() -> None:
    summary = batching.simulate(batch_size=1)["summary"]
    assert summary["static_idle_fraction"] == summary["continuous_idle_fraction"] == 0.0
    assert summary["static_makespan_s"] == summary["continuous_makespan_s"]


def test_spread_answers_leave_static_slots_idle() -> None:
    summary = batching.simulate()["summary"]
    assert summary["static_idle_fraction"] > 3 * summary["continuous_idle_fraction"] > 0
    assert summary["continuous_mean_latency_s"] < summary["static_mean_latency_s"]


def test_answer_lengths_are_drawn_in_range_and_by_seed() -> None:
    first = _lengths(batching.simulate(seed=11, min_output_tokens=50, max_output_tokens=60))
    again = _lengths(batching.simulate(seed=11, min_output_tokens=50, max_output_tokens=60))
    other = _lengths(batching.simulate(seed=12, min_output_tokens=50, max_output_tokens=60))
    assert first == again != other
    assert len(first) == 14 and all(50 <= n <= 60 for n in first)


def test_a_shorter_longest_answer_than_shortest_is_refused_at_the_control() -> None:
    with pytest.raises(ValueError, match=r"^max_output_tokens: expected at least") as caught:
        batching.simulate(min_output_tokens=300, max_output_tokens=200)
    assert caught.value.input == "max_output_tokens"


def test_the_timeline_accounts_for_every_slot_step() -> None:
    result = batching.simulate(batch_size=5, requests=9)
    rows = result["charts"][0]["data"]["values"]
    summary = result["summary"]
    for label, policy in (("Static", "static"), ("Continuous", "continuous")):
        mine = [r for r in rows if r["policy"] == label]
        for slot in range(1, 6):
            stretches = sorted((r["start"], r["end"]) for r in mine if r["slot"] == slot)
            assert stretches[0][0] == 0 and stretches[-1][1] == summary[f"{policy}_steps"]
            assert all(a[1] == b[0] for a, b in zip(stretches, stretches[1:], strict=False))
        idle = sum(r["steps"] for r in mine if r["request"] is None)
        share = idle / (5 * summary[f"{policy}_steps"])
        assert round(share, 3) == summary[f"{policy}_idle_fraction"]
        assert sorted(r["request"] for r in mine if r["request"]) == list(range(1, 10))


def test_latency_chart_has_both_policies_per_request() -> None:
    result = batching.simulate(requests=5)
    rows = result["charts"][1]["data"]["values"]
    assert [(r["request"], r["policy"]) for r in rows] == [
        (n, p) for n in range(1, 6) for p in ("Static", "Continuous")
    ]


def test_it_is_fast_at_its_most_expensive_inputs() -> None:
    """A few ms at defaults, bounded at the corners: steps are summed in closed form."""
    result = batching.simulate(requests=64, batch_size=1, min_output_tokens=1024,
                               max_output_tokens=1024)
    assert result["summary"]["static_steps"] == 64 * 1024  # no per-step loop would get here


# -- the explainer's hand derivation ------------------------------------------------------


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_page_embeds_the_sim_at_its_defaults() -> None:
    assert opens_at_the_defaults("batching", "batching")


def test_check_it_yourself_figures_follow_from_the_defaults() -> None:
    text = rendered("batching")
    result = batching.simulate()
    lengths = _lengths(result)
    summary = result["summary"]
    listed = ", ".join(map(str, lengths[:-1])) + f" and {lengths[-1]} tokens"
    assert listed in text
    total = sum(lengths)
    assert f"{total:,} tokens in all" in text

    batches = [max(lengths[i:i + 4]) for i in range(0, len(lengths), 4)]
    assert " + ".join(map(str, batches)) in text
    assert sum(batches) == summary["static_steps"]
    slot_steps = 4 * summary["static_steps"]
    assert f"{slot_steps:,} slot-steps" in text
    assert f"{slot_steps - total:,} / {slot_steps:,}" in text
    assert round((slot_steps - total) / slot_steps, 3) == summary["static_idle_fraction"]
    continuous = 4 * summary["continuous_steps"]
    assert f"{continuous:,} slot-steps, so {continuous - total} sat" in text
    assert f"about {-(-total // 4)} steps" in text

    for phrase, value, spec in hardware_claims(GPU, "H100", ".2f"):
        assert phrase.format(format(value, spec)) in text
    profile = GPU.kernels
    decode_fit = profile.decode_attention["bf16"]
    assert f"a GEMM pays {profile.gemm['bf16'].fixed_s * 1e6:.3g} µs to start" in text
    assert f"at {decode_fit.memory_efficiency * 100:.3g}% of the bandwidth" in text
    assert f"pays {decode_fit.fixed_s * 1e6:.3g} µs a call" in text
    assert f"plus {decode_fit.per_sequence_s * 1e9:.3g} ns per sequence" in text
    assert f"takes {profile.elementwise.fixed_s * 1e6:.3g} µs to start" in text

    layer = 4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336  # QKV, O, gate and up, down
    head = 128256 * 4096
    streamed = 2 * (32 * layer + head)
    assert f"{(32 * layer + head) / 1e9:.2f} billion weights" in text
    assert f"{layer / 1e6:.0f} million each" in text
    assert f"{head / 1e6:.0f} million of the output layer" in text
    assert f"{streamed / 1e9:.1f} GB in BF16" in text
    step = hand_priced(GPU, MODEL, [Work(1, 512, count=4)])
    gemm, attention = step["gemm"], step["decode_attention"]
    assert f"step's {gemm.count} GEMMs" in text
    assert f"{gemm.memory_s * 1e3:.2f} ms. Four requests" in text
    assert f"{MODEL.kv_bytes_per_token():,.0f} bytes" in text
    assert f"of KV cache, {attention.moved / 1e9:.2f} GB" in text
    decode_rate = GPU.hbm_bytes_per_s * decode_fit.memory_efficiency
    assert f"reads at {decode_rate / 1e12:.2f} TB/s" in text
    assert f"in {attention.memory_s * 1e3:.2f} ms. Each" in text
    assert f"step's {sum(k.count for k in step.values())} kernels" in text
    fixed = sum(k.fixed_s for k in step.values())
    assert f"fixed cost, {fixed * 1e3:.2f} ms in all" in text
    full = price([Work(1, 512, count=4)])
    assert summary["full_step_ms"] == pytest.approx(full * 1e3, rel=1e-3)
    assert total_s(step) == pytest.approx(full, rel=1e-12)

    prefill = step_cost(GPU, MODEL, [Work(512, 0, count=4, logit_tokens=1)])
    pair = step_cost(GPU, MODEL, [Work(512, 0, count=2, logit_tokens=1)])
    fill_gemm = hand_priced(GPU, MODEL, [Work(512, 0, count=4, logit_tokens=1)])["gemm"]
    assert f"is {prefill.flops / 1e12:.1f} TFLOP" in text
    assert f"share takes {fill_gemm.compute_s * 1e3:.1f} ms at" in text
    assert f"the step {prefill.time_s * 1e3:.0f} ms with attention" in text
    assert f"({pair.time_s * 1e3:.0f} ms for the last" in text
    assert f"{32 * layer / 1e9:.2f} billion layer weights" in text
    decode_s = summary["static_makespan_s"] - 3 * prefill.time_s - pair.time_s
    assert f"about {decode_s:.2f} s" in text
    steps = [price([Work(1, 512)]), price([Work(1, 512 + 353, count=4)])]  # 1 busy slot; 4
    assert f"about {steps[0] * 1e3:.1f} to {steps[1] * 1e3:.1f} ms each" in text
