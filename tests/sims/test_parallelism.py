"""The parallelism sim: pipeline bubbles, token intervals per layout, and conserved work."""

from __future__ import annotations

import pytest

from sims.parallelism import LAYOUTS, play, simulate
from sims.physics import GPUS, MODELS, Work, decode_step, p2p_time, step_flops

GPU, MODEL = GPUS["h100"], MODELS["llama-3-70b"]


def test_pipeline_bubbles_when_microbatches_are_few() -> None:
    busy = [simulate(microbatches=m)["summary"]["pp8_busy_fraction"] for m in (1, 2, 4, 8)]
    assert busy == sorted(busy) and len(set(busy)) == len(busy)
    # One micro-batch in eight stages: each GPU works one stage in eight.
    assert busy[0] == pytest.approx(1 / 8, abs=0.01)
    assert busy[-1] > 0.85


def test_two_stages_fill_with_two_microbatches() -> None:
    busy = [simulate(microbatches=m)["summary"]["tp4_pp2_busy_fraction"] for m in (1, 2)]
    assert busy[0] == pytest.approx(0.5 * busy[1], rel=0.05)


def test_tp8_interval_is_one_decode_step_over_eight_gpus() -> None:
    summary = simulate(requests_in_flight=32)["summary"]
    step = decode_step(GPU, MODEL, 32, 2048, tp=8)
    assert summary["tp8_token_interval_s"] == pytest.approx(step.time_s, rel=1e-5)
    assert summary["tp8_busy_fraction"] == pytest.approx(step.matmul_s / step.time_s, rel=1e-5)
    assert summary["tp8_microbatches"] == 1


def test_pp8_with_one_microbatch_is_a_one_gpu_step_plus_seven_hops() -> None:
    """Each token walks all eight stages in turn: the whole model's step on one GPU."""
    summary = simulate(requests_in_flight=32, microbatches=1)["summary"]
    one_gpu = decode_step(GPU, MODEL, 32, 2048, tp=1).time_s
    hops = 7 * p2p_time(GPU, 32 * MODEL.hidden * MODEL.bytes_per_param)
    assert summary["pp8_token_interval_s"] == pytest.approx(one_gpu + hops, rel=1e-5)


@pytest.mark.parametrize("microbatches", [1, 4, 8])
def test_pp8_interval_is_longer_than_tp8(microbatches: int) -> None:
    summary = simulate(microbatches=microbatches)["summary"]
    assert summary["pp8_token_interval_s"] > 4 * summary["tp8_token_interval_s"]
    assert summary["pp8_throughput_tokens_per_s"] < summary["tp8_throughput_tokens_per_s"]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.key)
@pytest.mark.parametrize(("requests", "microbatches"), [(32, 4), (9, 7), (1, 8), (256, 8)])
def test_every_layout_conserves_work(layout, requests: int, microbatches: int) -> None:
    """Per round, every layout computes the same FLOPs and hands every request one token."""
    run = play(layout, GPU, MODEL, requests, 2048, microbatches)
    whole = step_flops(MODEL, [Work(1, 2048, count=requests)])
    assert run.flops_per_round == pytest.approx(whole, rel=1e-12)
    assert sum(run.sizes) == requests
    assert len({len(times) for times in run.tokens}) == 1


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.key)
def test_steady_state_gives_every_request_the_same_interval(layout) -> None:
    run = play(layout, GPU, MODEL, 30, 2048, 4)
    intervals = [times[-1] - times[-2] for times in run.tokens]
    assert intervals == pytest.approx([intervals[0]] * len(intervals), rel=1e-9)
    before = [times[-2] - times[-3] for times in run.tokens]
    assert before == pytest.approx(intervals, rel=1e-9)


def test_microbatches_never_outnumber_requests() -> None:
    summary = simulate(requests_in_flight=3, microbatches=8)["summary"]
    assert summary["pp8_microbatches"] == summary["tp4_pp2_microbatches"] == 3


def test_throughput_is_requests_per_interval() -> None:
    summary = simulate(requests_in_flight=48)["summary"]
    for layout in LAYOUTS:
        interval = summary[f"{layout.key}_token_interval_s"]
        throughput = summary[f"{layout.key}_throughput_tokens_per_s"]
        assert throughput == pytest.approx(48 / interval, rel=1e-5)


def test_timelines_share_one_clock_and_draw_every_gpu() -> None:
    charts = simulate()["charts"]
    assert len(charts) == len(LAYOUTS)
    domains = {tuple(c["layer"][0]["encoding"]["x"]["scale"]["domain"]) for c in charts}
    assert len(domains) == 1
    for chart in charts:
        rows = chart["layer"][0]["encoding"]["y"]["sort"]
        assert rows[:8] == [f"GPU {g}" for g in range(1, 9)]
        drawn = {row for item in chart["data"]["values"] for row in item["row"]}
        assert {f"GPU {g}" for g in range(1, 9)} <= drawn


def test_405b_does_not_fit_on_eight_h100s() -> None:
    assert simulate(model="llama-3.1-405b")["summary"]["fits"] is False
    assert simulate()["summary"]["fits"] is True
