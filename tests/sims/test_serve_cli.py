"""`python -m sims serve`: the contract other tools call (issue 39), and what its run means.

The figures are held to their definitions (TPOT per request, ITL per gap, throughput over
the run) and to what the load does (a closed loop of one user queues nobody; more users
raise throughput and the gaps between tokens; an engine that reserves room never
preempts); how close they come to measured runs is test_engine_profiles.py's."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from sims.__main__ import main
from sims.physics import GPUS, MODELS, Work, precision_for, step_cost
from sims.serving import deploy
from sims.serving.engines import ENGINES
from sims.serving.replica import Policy, serve
from sims.serving.step_table import step_table
from sims.serving.workload import Request

STATS = {"mean", "p50", "p90", "p99"}


def _serve(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["serve", *argv]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    return json.loads(printed)


def test_it_prints_the_contracts_keys(capsys: pytest.CaptureFixture[str]) -> None:
    result = _serve(capsys, "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "2",
                    "--parallel", "tp", "--weights", "fp8", "--kv", "fp8", "--engine",
                    "trtllm", "--isl", "1000", "--osl", "200", "--concurrency", "8",
                    "--requests", "64", "--length_spread", "0.3", "--seed", "3")
    for key in ("ttft_s", "tpot_s", "itl_s"):
        assert set(result[key]) == STATS
        assert 0 < result[key]["p50"] <= result[key]["p99"]
    for key in ("output_tokens_per_s", "output_tokens_per_s_per_gpu",
                "output_tokens_per_s_per_user", "requests_per_s"):
        assert result[key] > 0
    assert result["output_tokens_per_s_per_gpu"] == pytest.approx(
        result["output_tokens_per_s"] / 2, rel=1e-4)  # printed to 6 significant figures
    assert result["output_tokens_per_s_per_user"] == pytest.approx(
        1 / result["tpot_s"]["mean"], rel=1e-4)
    assert result["inputs"]["concurrency"] == 8 and "rate" not in result["inputs"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--concurrency", "4", "--rate", "2"], "rate: give --concurrency"),
    (["--gpus", "16"], "gpus: expected 1 to 8 GPUs"),
    (["--gpus", "3"], "gpus: expected a degree that divides the 32 query heads"),
    (["--parallel", "ep"], "parallel: expected tp for Llama 3.1 8B"),
    (["--engine", "tgi"], "engine: expected one of"),
    (["--isl", "0"], "isl: expected an integer from 1"),
    (["--model", "llama-3.1-405b", "--weights", "bf16"], "gpus: Llama 3.1 405B on 1"),
    (["--model", "llama-3.1-70b", "--gpus", "2", "--weights", "fp8", "--isl", "131072",
      "--osl", "131072"], "isl: a request of 262,144 tokens does not fit"),
    (["--requests", "16", "--warmup", "16"], "warmup: the warm-up (16 requests) leaves none"),
])
def test_a_bad_input_exits_2_naming_it(argv: list[str], message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err


def test_one_user_queues_behind_nobody() -> None:
    """At concurrency 1 each request runs alone: its TPOT is the decode step of one
    sequence (plus the engine's overhead), its TTFT the prefill plus the intake."""
    result = deploy.serve_json({"concurrency": 1, "requests": 20, "isl": 512, "osl": 64})
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    engine = ENGINES["vllm"]
    decode = step_cost(gpu, model, [Work(1, 512 + 32)], 1).time_s + engine.graph_overhead_s
    assert result["tpot_s"]["mean"] == pytest.approx(decode, rel=0.03)
    prefill = step_cost(gpu, model, [Work(512, 0, logit_tokens=1)], 1).time_s
    assert result["ttft_s"]["mean"] > prefill
    assert result["ttft_s"]["mean"] < prefill + engine.eager_overhead_s + 6 * (
        engine.request_overhead_s)


def test_a_warm_up_leaves_the_first_round_out_of_the_per_request_figures() -> None:
    """With --warmup, TTFT and TPOT are over the requests sent after the first `warmup`
    (in a closed loop, after the users' first ones, which arrive together and queue); the
    token gaps and the throughput still cover the whole run."""
    given = {"model": "llama-3.1-8b", "engine": "trtllm", "weights": "fp8", "kv": "fp8",
             "isl": 1000, "osl": 100, "concurrency": 32, "requests": 96}
    whole = deploy.serve_json(given)
    steady = deploy.serve_json({**given, "warmup": 32})
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    served, outputs = deploy.served_run(
        gpu, model, ENGINES["trtllm"], 1, "tp", precision_for(gpu, model, "fp8", "fp8", "fp8"),
        1000, 100, 96, 0.0, 0, 32, 1.0)
    later = sorted(range(96), key=served.sent.__getitem__)[32:]
    assert all(served.sent[i] > 0 for i in later)  # the first round is the 32 sent at 0
    ttft = [served.first_token[i] - served.sent[i] for i in later]
    assert steady["ttft_s"]["mean"] == pytest.approx(sum(ttft) / len(ttft), rel=1e-5)
    assert steady["ttft_s"]["mean"] < whole["ttft_s"]["mean"]  # the first round queued
    assert steady["itl_s"] == whole["itl_s"]
    assert steady["output_tokens_per_s"] == whole["output_tokens_per_s"]
    assert steady["inputs"]["warmup"] == 32


def test_more_users_more_throughput_and_slower_tokens() -> None:
    runs = [deploy.serve_json({"concurrency": users, "requests": 200}) for users in (1, 8, 64)]
    rates = [run["output_tokens_per_s"] for run in runs]
    gaps = [run["itl_s"]["mean"] for run in runs]
    assert rates == sorted(rates) and rates[-1] > 10 * rates[0]
    assert gaps == sorted(gaps)


def test_a_rate_far_below_capacity_leaves_ttft_at_its_floor() -> None:
    slow = deploy.serve_json({"rate": 0.5, "requests": 100})
    alone = deploy.serve_json({"concurrency": 1, "requests": 100})
    assert slow["ttft_s"]["p50"] == pytest.approx(alone["ttft_s"]["p50"], rel=0.25)
    assert slow["requests_per_s"] == pytest.approx(0.5, rel=0.3)


def test_expert_parallel_with_data_parallel_attention_runs() -> None:
    result = deploy.serve_json({"model": "qwen3-30b-a3b", "gpu": "h100", "gpus": 4,
                                "parallel": "ep", "weights": "fp8", "engine": "sglang",
                                "concurrency": 32, "requests": 128})
    assert result["output_tokens_per_s_per_gpu"] > 0


def _policy(reserve: bool) -> Policy:
    return Policy(token_budget=2048, max_batch=64, kv_slots=6000, window_slots=0,
                  chunked=True, reserve=reserve)


def test_reserving_room_never_preempts_and_recomputing_does() -> None:
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    table = step_table(gpu, model, 1, precision_for(gpu, model))
    requests = [Request(0.0, 200, 800)] * 40
    recompute = serve(requests, _policy(False), table, concurrency=16)
    reserve = serve(requests, _policy(True), table, concurrency=16)
    assert recompute.preemptions > 0 and reserve.preemptions == 0
    assert all(end > 0 for end in reserve.finished)


def test_a_closed_loop_keeps_its_users_busy_and_no_more() -> None:
    """Each request is sent when another ends (after the first `users`), never before."""
    gpu, model = GPUS["h100"], MODELS["llama-3.1-8b"]
    table = step_table(gpu, model, 1, precision_for(gpu, model))
    requests = [Request(0.0, 300, 50)] * 60
    served = serve(requests, _policy(False), table, concurrency=5, intake_s=0.002, seed=1)
    ends = sorted(served.finished)
    sent = sorted(served.sent)
    assert sent[:5] == [0.0] * 5
    for index, at in enumerate(sent[5:]):
        assert at == pytest.approx(ends[index]), index  # the k-th send is the k-th end
    assert all(math.isfinite(at) for at in served.sent)


def test_the_same_seed_gives_the_same_run() -> None:
    first = deploy.serve_json({"concurrency": 12, "requests": 80, "length_spread": 0.5,
                               "seed": 7})
    again = deploy.serve_json({"concurrency": 12, "requests": 80, "length_spread": 0.5,
                               "seed": 7})
    assert first == again


ENGINE_KEYS = tuple(ENGINES)
PAIRS = [(gpu, model) for gpu in GPUS for model in MODELS]


@pytest.mark.parametrize(("gpu", "model"), PAIRS, ids=[f"{g}-{m}" for g, m in PAIRS])
def test_every_gpu_and_model_answers_or_is_refused_with_the_reason(gpu: str, model: str) -> None:
    """The issue's contract: for each GPU and model of the catalogue, on the GPU's whole
    scale-up domain, an answer with every figure, or a refusal that names the GPUs and says
    why. Engines take turns so that each runs on every GPU (one with its own all-reduce
    kernels runs NCCL's where the GPU's profile has none measured)."""
    engine = ENGINE_KEYS[PAIRS.index((gpu, model)) % len(ENGINE_KEYS)]
    given = {"gpu": gpu, "model": model, "gpus": GPUS[gpu].scale_up_gpus, "engine": engine,
             "isl": 500, "osl": 20, "concurrency": 4, "requests": 12}
    try:
        result = deploy.serve_json(given)
    except deploy.InputError as error:
        assert error.input == "gpus" and MODELS[model].name in str(error)
        return
    assert all(result[key]["p50"] > 0 for key in ("ttft_s", "tpot_s", "itl_s"))
    assert result["output_tokens_per_s_per_gpu"] > 0


@pytest.mark.parametrize("engine", ENGINE_KEYS)
@pytest.mark.parametrize("gpu", list(GPUS))
def test_every_engine_runs_on_every_gpu(gpu: str, engine: str) -> None:
    result = deploy.serve_json({"gpu": gpu, "model": "llama-3.1-8b", "engine": engine,
                                "isl": 200, "osl": 10, "concurrency": 2, "requests": 4})
    assert result["ttft_s"]["mean"] > 0
