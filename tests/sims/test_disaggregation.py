"""The disaggregation sim: two pools flatten the gaps between tokens, the prefill pool becomes
the queue when it is too small, the KV transfer is the physics' send; and its page's worked
figures are the physics'."""

from __future__ import annotations

import pytest
from explainer_pages import PROFILE, rendered

from sims import disaggregation
from sims.disaggregation import simulate
from sims.physics import (
    GPUS,
    MODELS,
    SCALE_OUT_LATENCY_S,
    Work,
    memory_fit,
    p2p_time,
    precision_for,
    prefill,
    scale_out_time,
    step_cost,
)
from sims.physics.capacity import sequences_that_fit
from sims.physics.pricing import pricer

GPU, MODEL, PROMPT, OUTPUT = GPUS["h100"], MODELS["llama-3.1-8b"], 2048, 256
PRECISION = precision_for(GPU, MODEL)


@pytest.fixture(scope="module")
def default() -> dict:
    return simulate()["summary"]


def test_two_pools_flatten_the_gaps_between_tokens(default: dict) -> None:
    assert default["disaggregated_p99_itl_s"] < 1.2 * default["disaggregated_p50_itl_s"]
    assert default["colocated_p99_itl_s"] > 1.8 * default["colocated_p50_itl_s"]
    assert default["disaggregated_p99_itl_s"] < default["colocated_p99_itl_s"]


def test_the_single_pools_worst_gap_is_a_step_with_a_prompt_slice(default: dict) -> None:
    with_slice = step_cost(GPU, MODEL, [Work(1, PROMPT, count=4), Work(512, 0, logit_tokens=0)],
                           1, PRECISION).time_s
    assert default["colocated_p99_itl_s"] == pytest.approx(with_slice, rel=0.1)


def test_at_light_load_the_first_token_is_the_prefill_alone(default: dict) -> None:
    light = simulate(request_rate=0.5)["summary"]
    alone = prefill(GPU, MODEL, PROMPT, precision=PRECISION).time_s
    assert light["disaggregated_p50_ttft_s"] == pytest.approx(alone, rel=1e-5)
    assert default["prefill_alone_s"] == pytest.approx(alone, rel=1e-5)
    # Chunked, the same prompt takes several steps, each with decodes in it.
    assert light["colocated_p50_ttft_s"] > alone


def test_splitting_pays_at_the_defaults_and_not_when_the_prefill_pool_is_too_small(
    default: dict,
) -> None:
    assert default["splitting_pays"] is True
    busy = simulate(request_rate=16)["summary"]
    assert busy["splitting_pays"] is False
    assert busy["disaggregated_p99_ttft_s"] > busy["colocated_p99_ttft_s"]
    resized = simulate(request_rate=16, prefill_gpus=3, decode_gpus=1)["summary"]
    assert resized["splitting_pays"] is True
    starved = simulate(request_rate=16, prefill_gpus=1, decode_gpus=3)["summary"]
    assert starved["disaggregated_p99_ttft_s"] > 3 * busy["disaggregated_p99_ttft_s"]


def test_the_chunk_moves_the_single_pools_cost_between_its_two_latencies(default: dict) -> None:
    big, small = simulate(chunk_tokens=2048)["summary"], simulate(chunk_tokens=256)["summary"]
    assert big["colocated_p99_ttft_s"] < default["colocated_p99_ttft_s"] < small[
        "colocated_p99_ttft_s"]
    assert big["colocated_p99_itl_s"] > default["colocated_p99_itl_s"] > small[
        "colocated_p99_itl_s"]
    # The two pools do not chunk: their figures do not move.
    for key in ("disaggregated_p99_ttft_s", "disaggregated_p99_itl_s"):
        assert big[key] == default[key] == small[key]


@pytest.mark.parametrize("link", disaggregation.LINKS)
def test_the_kv_transfer_is_one_shard_sent_by_the_physics(link: str) -> None:
    summary = simulate(link=link, model="llama-3.1-70b", tp="4", prefill_gpus=4,
                       decode_gpus=4, request_rate=1)["summary"]
    model = MODELS["llama-3.1-70b"]
    shard = memory_fit(GPU, model, 1, PROMPT, 4, precision_for(GPU, model)).kv_per_gpu_bytes
    sent = scale_out_time(GPU, shard) if link == "network" else p2p_time(GPU, shard)
    assert summary["kv_transfer_s"] == pytest.approx(sent, rel=1e-5)
    assert summary["kv_bytes_per_request_gb"] == pytest.approx(model.kv_bytes(PROMPT) / 1e9,
                                                               rel=1e-5)


def test_the_transfer_delays_one_gap_per_request_not_the_percentiles(default: dict) -> None:
    fast = simulate(link="nvlink")["summary"]
    assert fast["kv_transfer_s"] < default["kv_transfer_s"]
    assert fast["disaggregated_p99_itl_s"] == default["disaggregated_p99_itl_s"]
    assert fast["disaggregated_p99_ttft_s"] == default["disaggregated_p99_ttft_s"]


def test_the_pools_are_whole_instances(default: dict) -> None:
    assert (default["colocated_instances"], default["prefill_instances"],
            default["decode_instances"]) == (4, 2, 2)
    with pytest.raises(ValueError, match="^prefill_gpus: expected a multiple of the 2"):
        simulate(tp="2", prefill_gpus=3)
    with pytest.raises(ValueError, match="^decode_gpus: expected a multiple of the 4"):
        simulate(tp="4", prefill_gpus=4, decode_gpus=2)


def test_links_the_gpus_cannot_use_are_refused() -> None:
    with pytest.raises(ValueError, match="^link: expected the network, or at most 8 GPUs"):
        simulate(link="nvlink", prefill_gpus=6, decode_gpus=6)
    with pytest.raises(ValueError, match="^link: expected nvlink"):
        simulate(gpu="mi300x")
    assert "l40s" not in disaggregation.TRANSFER_GPUS  # no NVLink, no network figure


def test_a_model_an_instance_cannot_hold_is_refused() -> None:
    with pytest.raises(ValueError, match="^tp: expected enough GPUs per instance"):
        simulate(model="llama-3.1-405b")


def test_every_request_appears_once_in_each_setup() -> None:
    rows = simulate()["charts"][0]["data"]["values"]
    for setup in (disaggregation.COLOCATED, disaggregation.DISAGGREGATED):
        assert sum(row["setup"] == setup for row in rows) == disaggregation.REQUESTS


def test_the_same_inputs_give_the_same_run(default: dict) -> None:
    assert simulate()["summary"] == default


# -- the page ---------------------------------------------------------------------------


def _ring():  # noqa: ANN202 - a sims.physics.profile.AllReduceAlgorithm
    """NCCL's ring algorithm in the H100's profile: what a send is priced with."""
    return next(algorithm for algorithm in GPU.kernels.all_reduce["nccl"].algorithms
                if algorithm.traffic == "ring")


def page_figures() -> list[tuple[str, float, str]]:
    alone = prefill(GPU, MODEL, PROMPT, precision=PRECISION)
    price = pricer(GPU, MODEL, PRECISION, 1, "tp")
    fill = price.classes([Work(PROMPT, 0, logit_tokens=1)])
    context = 2200
    decodes = [Work(1, context, count=4)]
    plain = step_cost(GPU, MODEL, decodes, 1, PRECISION)
    first = step_cost(GPU, MODEL, [*decodes, Work(512, 0, logit_tokens=0)], 1, PRECISION)
    last = step_cost(GPU, MODEL, [*decodes, Work(512, 1536, logit_tokens=1)], 1, PRECISION)
    kv = MODEL.kv_bytes(PROMPT)
    matmul, nccl = GPU.kernels.gemm["bf16"], _ring()
    return [
        ("An H100 does {} TFLOP/s of dense BF16", GPU.bf16_flops / 1e12, ".0f"),
        ("and reads {} TB/s from HBM", GPU.hbm_bytes_per_s / 1e12, ".2f"),
        ("a BF16 matmul reaches {}% of the peak", matmul.compute_efficiency * 100, PROFILE),
        ("peak and {}% of the bandwidth", matmul.memory_efficiency * 100, PROFILE),
        ("and costs {} µs to start", matmul.fixed_s * 1e6, PROFILE),
        ("link moves {} GB/s each way", GPU.scale_out_bytes_per_s / 1e9, ".0f"),
        ("costs {} µs before the first byte", SCALE_OUT_LATENCY_S * 1e6, ".0f"),
        ("the model are {} TFLOP", alone.flops / 1e12, ".2f"),
        ("fixed costs together, take {} ms", fill["gemm", "bf16"] * 1e3, ".2f"),
        ("the attention operator {} ms", fill["prefill_attention", "bf16"] * 1e3, ".2f"),
        ("the norms and activations {} ms:", fill["elementwise", ""] * 1e3, ".2f"),
        ("activations 3.31 ms: {} ms.", alone.time_s * 1e3, ".2f"),
        ("two pools is {} ms after", alone.time_s * 1e3, ".2f"),
        ("context takes {} ms,", plain.time_s * 1e3, ".2f"),
        ("ms, {} ms of it the matmuls", price.classes(decodes)["gemm", "bf16"] * 1e3, ".2f"),
        ("slice takes {} ms, and with", first.time_s * 1e3, ".2f"),
        ("before it, {} ms. Four", last.time_s * 1e3, ".2f"),
        ("2 × 32 × 8 × 128 × 2 = {} bytes", MODEL.kv_bytes_per_token("bf16"), ",.0f"),
        ("per token, {} MB for", kv / 1e6, ".1f"),
        ("at 50 GB/s, {} ms.", scale_out_time(GPU, kv) * 1e3, ".2f"),
        ("between two GPUs ({} µs)", nccl.latency_s[2] * 1e6, PROFILE),
        ("the link's {} GB/s", GPU.scale_up_bytes_per_s / 1e9, ".0f"),
        ("GB/s ({}%):", nccl.bus_efficiency * 100, PROFILE),
        ("%): {} ms.", p2p_time(GPU, kv) * 1e3, ".2f"),
        ("caches of {} requests of 2,304", sequences_that_fit(GPU, MODEL, PROMPT + OUTPUT, 1,
                                                              PRECISION), "d"),
        ("requests of {} tokens", PROMPT + OUTPUT, ",d"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("disaggregation")


def test_a_send_over_nvlink_is_nccls_latency_and_share_of_one_link() -> None:
    """The page's NVLink figure: the fitted constants of NCCL's ring the physics sends with."""
    nccl, kv = _ring(), MODEL.kv_bytes(PROMPT)
    assert p2p_time(GPU, kv) == pytest.approx(
        nccl.latency_s[2] + kv / (nccl.bus_efficiency * GPU.scale_up_bytes_per_s))


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in disaggregation.INPUTS} == {
        "request_rate": 8.0, "prefill_gpus": 2, "decode_gpus": 2, "link": "network",
        "prompt_tokens": 2048, "output_tokens": 256, "chunk_tokens": 512,
        "model": "llama-3.1-8b", "model_config": "", "gpu": "h100", "tp": "1", "weights": "native",
        "kv": "bf16",
    }
    text = rendered("disaggregation")
    assert "{{" not in text
    assert f"The same {disaggregation.REQUESTS} requests, arriving as a Poisson stream at 8" in text
    assert (MODEL.layers, MODEL.kv_heads, MODEL.head_dim) == (32, 8, 128)


def test_page_claims_hold_in_the_sim() -> None:
    # "each is busy about a fifth of the time": 4 prompts a second each
    assert 0.16 <= 4 * prefill(GPU, MODEL, PROMPT, precision=PRECISION).time_s <= 0.24
    # "eight such prompts a second keep the two prefill GPUs busy most of the time, and the
    # queue behind them sets the first token", later than the single pool's
    assert 0.5 < 4 * prefill(GPU, MODEL, 8192, precision=PRECISION).time_s < 1
    long = simulate(prompt_tokens=8192)["summary"]
    assert long["disaggregated_p50_ttft_s"] > 2 * long["prefill_alone_s"]
    assert long["colocated_p50_ttft_s"] < long["disaggregated_p50_ttft_s"]


def test_an_fp8_cache_sends_half_the_bytes_in_half_the_time() -> None:
    bf16, fp8 = simulate()["summary"], simulate(kv="fp8")["summary"]
    assert fp8["kv_bytes_per_request_gb"] == pytest.approx(bf16["kv_bytes_per_request_gb"] / 2,
                                                      rel=1e-5)  # printed to 6 figures
    assert fp8["kv_transfer_s"] < bf16["kv_transfer_s"]
