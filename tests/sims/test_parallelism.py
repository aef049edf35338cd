"""The parallelism sim: pipeline bubbles, token intervals per layout, and conserved work."""

from __future__ import annotations

import pytest
from explainer_pages import (
    Claim,
    hand_priced,
    hardware_claims,
    profile_claims,
    rendered,
    step_allreduce,
    total_s,
)

from sims import parallelism
from sims.parallelism import LAYOUTS, play, simulate
from sims.physics import (
    GPUS,
    MODELS,
    Work,
    decode_step,
    p2p_time,
    step_cost,
)
from sims.physics.profile import AllReduceAlgorithm
from tests.sims.explainer_pages import opens_at_the_defaults

GPU, MODEL = GPUS["h100"], MODELS["llama-3.1-70b"]


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
    assert summary["tp8_busy_fraction"] == pytest.approx(step.ops_s / step.time_s, rel=1e-5)
    assert summary["tp8_microbatches"] == 1


def test_pp8_with_one_microbatch_is_a_one_gpu_step_plus_seven_hops() -> None:
    """Each token walks all eight stages in turn: the whole model's step on one GPU."""
    summary = simulate(requests_in_flight=32, microbatches=1)["summary"]
    stages = sum(step_cost(GPU, MODEL.pipeline_stage(8, s), [Work(1, 2048, count=32)]).time_s
                 for s in range(8))
    hops = 7 * p2p_time(GPU, 32 * MODEL.hidden * 2)
    assert summary["pp8_token_interval_s"] == pytest.approx(stages + hops, rel=1e-5)
    # Nearly the whole model's step on one GPU: each stage starts its own embedding-less
    # slice, so only the kernels' fixed costs differ (one gather more, none fewer).
    one_gpu = decode_step(GPU, MODEL, 32, 2048, tp=1).time_s
    assert stages == pytest.approx(one_gpu, rel=0.001)


@pytest.mark.parametrize("microbatches", [1, 4, 8])
def test_pp8_interval_is_longer_than_tp8(microbatches: int) -> None:
    summary = simulate(microbatches=microbatches)["summary"]
    assert summary["pp8_token_interval_s"] > 3 * summary["tp8_token_interval_s"]
    assert summary["pp8_throughput_tokens_per_s"] < summary["tp8_throughput_tokens_per_s"]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.key)
@pytest.mark.parametrize(("requests", "microbatches"), [(32, 4), (9, 7), (1, 8), (256, 8)])
def test_every_layout_conserves_work(layout, requests: int, microbatches: int) -> None:
    """Per round, every layout computes the same FLOPs and hands every request one token."""
    run = play(layout, GPU, MODEL, requests, 2048, microbatches)
    whole = step_cost(GPU, MODEL, [Work(1, 2048, count=requests)]).flops
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


def test_timelines_share_one_clock_and_draw_every_gpu_once() -> None:
    """A row per stage, named by its GPUs: together they name each of the eight once."""
    charts = simulate()["charts"]
    assert len(charts) == len(LAYOUTS)
    domains = {tuple(c["encoding"]["x"]["scale"]["domain"]) for c in charts}
    assert len(domains) == 1
    expected = {
        "tp8": ["GPUs 1-8"],
        "pp8": [f"GPU {g}" for g in range(1, 9)],
        "tp4_pp2": ["GPUs 1-4", "GPUs 5-8"],
    }
    for layout, chart in zip(LAYOUTS, charts, strict=True):
        # Rows are ordered by the rank each data row carries (sims.kit.timeline), stages first.
        assert chart["encoding"]["y"]["sort"] == {"field": "rank", "op": "min"}
        ranks = {(item["row"], item["rank"]) for item in chart["data"]["values"]}
        assert len({row for row, _ in ranks}) == len(ranks), "one rank per row"
        rows = [row for row, _ in sorted(ranks, key=lambda pair: pair[1])]
        stages = len(expected[layout.key])
        assert rows[:stages] == expected[layout.key]
        groups = ["requests 1-32"] if layout.pp == 1 else [
            f"requests {8 * j + 1}-{8 * j + 8}" for j in range(4)]
        assert rows[stages:] == groups
        spans = [item for item in chart["data"]["values"] if "end" in item]
        assert {item["row"] for item in spans} == set(expected[layout.key])


def test_405b_does_not_fit_on_eight_h100s() -> None:
    assert simulate(model="llama-3.1-405b")["summary"]["fits"] is False
    assert simulate()["summary"]["fits"] is True


def hand_off() -> AllReduceAlgorithm:
    """NCCL's ring, whose two-GPU latency and share of the link a hand-off between pipeline
    stages pays (sims.physics.collectives.p2p_time)."""
    return next(a for a in GPU.kernels.all_reduce["nccl"].algorithms if a.traffic == "ring")


def page_figures() -> list[Claim]:
    """(phrase with {} for the figure, value, format) at the page's starting inputs."""
    requests, context, parts = 32, 2048, 4
    size = requests // parts
    tp8 = decode_step(GPU, MODEL, requests, context, tp=8)
    shard = hand_priced(GPU, MODEL, [Work(1, context, count=requests)], 8)
    allreduce = step_allreduce(GPU, MODEL, requests, 8)
    middle, last = MODEL.pipeline_stage(8, 1), MODEL.pipeline_stage(8, 7)
    stage = hand_priced(GPU, middle, [Work(1, context, count=size)])
    pp_middle = step_cost(GPU, middle, [Work(1, context, count=size)])
    pp_last = step_cost(GPU, last, [Work(1, context, count=size)])
    halves = [MODEL.pipeline_stage(2, s) for s in (0, 1)]
    hybrid = [step_cost(GPU, half, [Work(1, context, count=size)], 4) for half in halves]
    layer = 2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672
    gpu_kv = 2 * MODEL.layers * 1 * MODEL.head_dim * 2  # one KV head per GPU over eight
    stage_cache = size * (context + 1) * middle.kv_bytes_per_token()
    ring = hand_off()
    return [
        *hardware_claims(GPU, "H100", ".2f"),
        *profile_claims(GPU, "gemm", "decode_attention", "elementwise"),
        ("goes through NCCL: {} µs plus", ring.latency_s[2] * 1e6, ".2f"),
        ("its bytes at {} GB/s", ring.bus_efficiency * GPU.scale_up_bytes_per_s / 1e9, ".1f"),
        ("a GPU's {} GB/s of NVLink", GPU.scale_up_bytes_per_s / 1e9, ".0f"),
        ("One step runs {} kernels", sum(k.count for k in shard.values()), "d"),
        ("Its {} GEMMs move", shard["gemm"].count, "d"),
        ("GEMMs move {} GB, an eighth", shard["gemm"].moved / 1e9, ".2f"),
        ("activations, in {} ms at 2.74", shard["gemm"].memory_s * 1e3, ".2f"),
        ("32 × 2,049 × {} bytes", gpu_kv, ",d"),
        ("bytes = {} GB, in", shard["decode_attention"].moved / 1e9, ".2f"),
        ("GB, in {} ms; the element-wise", shard["decode_attention"].memory_s * 1e3, ".2f"),
        ("kernels move {} GB in", shard["elementwise"].moved / 1e9, ".2f"),
        ("GB in {} ms; and the kernels'", shard["elementwise"].memory_s * 1e3, ".2f"),
        ("fixed costs add {} ms: 10.43",
         sum(k.fixed_s for k in shard.values()) * 1e3, ".2f"),
        ("ms: {} ms of operators", total_s(shard) * 1e3, ".2f"),
        ("Its {} all-reduces carry", tp8.collectives, "d"),
        ("carry {} bytes each", allreduce.message, ",.0f"),
        ("and take {} µs each", allreduce.time_s * 1e6, ".2f"),
        ("µs each, {} ms in all", tp8.collective_s * 1e3, ".2f"),
        ("busy {} of every", tp8.ops_s * 1e3, ".2f"),
        ("of every {} ms", tp8.time_s * 1e3, ".2f"),
        ("Each stage holds {} layers", middle.layers, "d"),
        ("layers, {} GB of matmul weights", 2 * 10 * layer / 1e9, ".2f"),
        ("the output layer, {} GB", 2 * (10 * layer + 128256 * 8192) / 1e9, ".2f"),
        ("A micro-batch of {} requests", size, "d"),
        ("8 × 2,049 × {} bytes", middle.kv_bytes_per_token(), ",.0f"),
        ("bytes = {} GB of its cache", stage_cache / 1e9, ".2f"),
        ("each token's {} bytes", MODEL.kv_bytes_per_token(), ",.0f"),
        ("A middle stage's {} GEMMs", stage["gemm"].count, "d"),
        ("GEMMs move {} GB in", stage["gemm"].moved / 1e9, ".2f"),
        ("GB in {} ms, its", stage["gemm"].memory_s * 1e3, ".2f"),
        ("reads the cache in {} ms", stage["decode_attention"].memory_s * 1e3, ".2f"),
        ("and its {} kernels' fixed costs", sum(k.count for k in stage.values()), "d"),
        ("fixed costs add {} ms: its", sum(k.fixed_s for k in stage.values()) * 1e3, ".2f"),
        ("its step takes {} ms, or", pp_middle.time_s * 1e3, ".2f"),
        ("or {} ms in the last stage", pp_last.time_s * 1e3, ".2f"),
        ("8 hidden states takes {} µs", p2p_time(GPU, size * MODEL.hidden * 2) * 1e6, ".1f"),
        ("seven steps of about {} ms", pp_middle.time_s * 1e3, ".2f"),
        ("the last stage's {} ms and", pp_last.time_s * 1e3, ".2f"),
        ("works 4 × 6.85 = {} ms", 4 * pp_middle.time_s * 1e3, ".2f"),
        ("Each stage holds {} layers split over four", halves[0].layers, "d"),
        ("first stage's step takes {} ms", hybrid[0].time_s * 1e3, ".2f"),
        ("({} ms of shard work", hybrid[0].ops_s * 1e3, ".2f"),
        ("shard work and {} all-reduces", hybrid[0].collectives, "d"),
        ("all-reduces of {} µs)", hybrid[0].collective_s / hybrid[0].collectives * 1e6, ".2f"),
        ("the second's {} ms", hybrid[1].time_s * 1e3, ".2f"),
        ("a round takes 4 × {} =", hybrid[1].time_s * 1e3, ".2f"),
    ]


def test_the_worked_example_prices_what_the_sim_prices() -> None:
    """The page's kernel sums are the stages' steps, and a hand-off is NCCL's two-GPU
    latency plus its bytes at the two-GPU all-reduce's rate, as the page says."""
    shard = hand_priced(GPU, MODEL, [Work(1, 2048, count=32)], 8)
    assert total_s(shard) == pytest.approx(decode_step(GPU, MODEL, 32, 2048, tp=8).ops_s,
                                           rel=1e-12)
    for stages, tp in ((8, 1), (2, 4)):
        for index in range(stages):
            stage = MODEL.pipeline_stage(stages, index)
            work = [Work(1, 2048, count=8)]
            assert total_s(hand_priced(GPU, stage, work, tp)) == pytest.approx(
                step_cost(GPU, stage, work, tp).ops_s, rel=1e-12)
    message = 8 * MODEL.hidden * 2
    ring = hand_off()
    assert p2p_time(GPU, message) == pytest.approx(
        ring.latency_s[2] + message / (ring.bus_efficiency * GPU.scale_up_bytes_per_s),
        rel=1e-12)
    assert step_allreduce(GPU, MODEL, 8, 4).algorithm == "one_shot"
    assert step_allreduce(GPU, MODEL, 32, 8).algorithm == "one_shot"


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("parallelism")


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in parallelism.INPUTS} == {
        "requests_in_flight": 32, "context_tokens": 2048, "microbatches": 4,
        "model": "llama-3.1-70b", "model_config": "", "gpu": "h100",
    }
    text = rendered("parallelism")
    assert opens_at_the_defaults("parallelism", "parallelism")
    assert "{{" not in text
    assert "32 requests at 2,048 tokens of context, 4 micro-batches" in text


def test_page_claims_hold_in_the_sim() -> None:
    # "Every step is memory-bound here."
    for layout in LAYOUTS:
        for s in range(layout.pp):
            stage = MODEL.pipeline_stage(layout.pp, s)
            for size in (8, 32):
                assert step_cost(GPU, stage, [Work(1, 2048, count=size)], layout.tp).bound == (
                    "memory"
                )
    # "The second stage never waits": its work per round fills the whole round.
    run = play(LAYOUTS[2], GPU, MODEL, 32, 2048, 4)
    second = step_cost(GPU, MODEL.pipeline_stage(2, 1), [Work(1, 2048, count=8)], 4)
    assert 4 * second.time_s == pytest.approx(run.interval_s, rel=1e-9)
    # Filling the pipeline raises the busy fraction far more than the throughput.
    one, eight = (simulate(microbatches=m)["summary"] for m in (1, 8))
    busy_gain = eight["pp8_busy_fraction"] / one["pp8_busy_fraction"]
    throughput_gain = eight["pp8_throughput_tokens_per_s"] / one["pp8_throughput_tokens_per_s"]
    assert busy_gain > 5 and throughput_gain < 1.1
    many = simulate(requests_in_flight=256)["summary"]
    assert many["tp8_throughput_tokens_per_s"] > many["pp8_throughput_tokens_per_s"]
