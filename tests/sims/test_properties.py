"""Every sim, tried with inputs drawn at random: valid ones from the declared ranges always
give finite numbers, exactly the documented summary keys (METRICS) and charts, and finish
(a guard against hangs, not a speed test); invalid ones always raise the documented
ValueError naming the input. Invariants that hold for every input are written as properties.

What is already a property elsewhere is not repeated here: batching's "continuous never
finishes later than static" is in test_batching.py.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sims
from sims import chunked_prefill, disaggregation
from sims.kit.contract import Choice, Input, InputError, Text
from sims.physics import GPUS, MODELS, Work, check_group, precision_for
from sims.physics.capacity import sequences_that_fit
from sims.physics.drafters import MTP_MODELS
from sims.physics.model_choice import CUSTOM
from sims.physics.precision import PRECISIONS
from sims.physics.pricing import pricer
from tests.limits import within

NAMES = sims.sim_names()
SECONDS = 5  # per run: a hang, not slowness (the slowest sim takes tens of milliseconds)
# A summary's figures are rounded to 6 significant digits (sims.kit.contract), each within
# 5e-6 of itself: two compared figures, or a figure and what it rounds, differ by up to this.
ROUNDED = 1e-5

@dataclass(frozen=True)
class CrossCheck:
    """A refusal that involves two inputs, which the declared ranges cannot say alone."""

    holds: Callable[[dict[str, Any]], bool]  # are these inputs valid together?
    input: str  # the input the refusal names
    breaking: st.SearchStrategy[dict[str, Any]]  # values, each valid alone, that break it


def _accepted(check: Callable[[], object]) -> bool:
    try:
        check()
    except InputError:
        return False
    return True


# A group of GPUs the physics can price: within the GPU's scale-up domain, splitting the
# model's heads (every mixture of experts here has experts that any degree divides). The
# L40S has no NVLink: a domain of one.
GROUP = CrossCheck(
    lambda v: (int(v["tp"]) <= GPUS[v["gpu"]].scale_up_gpus
               and MODELS[v["model"]].heads % int(v["tp"]) == 0),
    "tp",
    st.fixed_dictionaries({"gpu": st.just("l40s"), "tp": st.sampled_from(["2", "4", "8"]),
                           "layout": st.just("tp")}),
)
# The same refusal for sims without a layout input (the load sims): only GPU and degree.
GROUP_TP = CrossCheck(
    GROUP.holds, "tp",
    st.fixed_dictionaries({"gpu": st.just("l40s"), "tp": st.sampled_from(["2", "4", "8"])}),
)
MIN_CHUNK = chunked_prefill.MIN_CHUNK_TOKENS


def _group_holds(gpu: str, model: str, gpus: int, layout: str = "tp") -> bool:
    return _accepted(lambda: check_group(GPUS[gpu], MODELS[model], gpus, layout))


# The GPUs and formats a GPU has no tensor-core rate for: activations the physics refuses.
MISSING_RATES = [(gpu, fmt) for gpu in sorted(GPUS) for fmt in PRECISIONS
                 if fmt not in GPUS[gpu].dense_flops]
SINGLE_GPUS = sorted(key for key, gpu in GPUS.items() if gpu.scale_up_gpus == 1)
NO_NETWORK = sorted(key for key in disaggregation.TRANSFER_GPUS
                    if GPUS[key].scale_out_bytes_per_s is None)


def _one_request_fits(v: dict[str, Any]) -> bool:
    model, gpu = MODELS[v["model"]], GPUS[v["gpu"]]
    context = v["prompt_tokens"] + v["output_tokens"]
    precision = precision_for(gpu, model, v.get("weights"), kv=v.get("kv", "bf16"))
    return sequences_that_fit(gpu, model, context, int(v["tp"]), precision) > 0


CROSS_CHECKS: dict[str, tuple[CrossCheck, ...]] = {
    "batching": (CrossCheck(
        lambda v: v["max_output_tokens"] >= v["min_output_tokens"], "max_output_tokens",
        st.integers(2, 1024).flatmap(
            lambda low: st.fixed_dictionaries(
                {"min_output_tokens": st.just(low), "max_output_tokens": st.integers(1, low - 1)}
            )
        ),
    ),),
    "chunked_prefill": (CrossCheck(
        lambda v: v["chunk_tokens"] == 0 or v["chunk_tokens"] >= MIN_CHUNK, "chunk_tokens",
        st.fixed_dictionaries({"chunk_tokens": st.integers(1, MIN_CHUNK - 1)}),
    ), GROUP),
    "speculative": (GROUP, CrossCheck(  # multi-token prediction needs a model trained with it
        lambda v: v["drafter"] != "mtp" or v["model"] in MTP_MODELS, "drafter",
        st.fixed_dictionaries({"drafter": st.just("mtp"), "model": st.just("llama-3.1-8b")}))),
    "goodput": (GROUP_TP, CrossCheck(  # expert parallel needs a mixture of experts
        lambda v: v["parallel"] == "tp" or MODELS[v["model"]].experts > 0, "parallel",
        st.fixed_dictionaries({"parallel": st.just("ep"), "model": st.just("llama-3.1-8b"),
                               "gpu": st.just("h100"), "tp": st.just("2")}),
    )),
    "kv_memory": (GROUP_TP,),
    "tensor_parallel": (GROUP,),
    "calculator": (
        GROUP,
        CrossCheck(  # expert parallel needs a mixture of experts
            lambda v: v["layout"] == "tp" or MODELS[v["model"]].experts > 0, "layout",
            st.fixed_dictionaries({"layout": st.just("ep"), "model": st.just("llama-3.1-8b"),
                                   "gpu": st.just("h100"), "tp": st.just("8")}),
        ),
        CrossCheck(  # activations in a format the GPU computes in
            lambda v: _accepted(lambda: precision_for(GPUS[v["gpu"]], MODELS[v["model"]],
                                                      v["weights"], v["activations"], v["kv"])),
            "activations",
            st.fixed_dictionaries({"gpu": st.just("a100"),
                                   "activations": st.sampled_from(["fp8", "fp4"])}),
        ),
        CrossCheck(  # a prefill has tokens to compute: new ones, or its context as the prompt
            lambda v: v["phase"] == "decode" or v["prompt_tokens"] > 0 or v["context"] > 0,
            "prompt_tokens",
            st.fixed_dictionaries({"phase": st.just("prefill"), "context": st.just(0),
                                   "prompt_tokens": st.just(0)}),
        ),
    ),
    "quantization": (
        CrossCheck(lambda v: _group_holds(v["gpu"], v["model"], int(v["tp"])), "tp",
                   st.fixed_dictionaries({"gpu": st.sampled_from(SINGLE_GPUS),
                                          "tp": st.sampled_from(["2", "4", "8"])})),
        CrossCheck(lambda v: v["activations"] == "auto"
                   or v["activations"] in GPUS[v["gpu"]].dense_flops, "activations",
                   st.sampled_from(MISSING_RATES).map(
                       lambda pair: {"gpu": pair[0], "activations": pair[1], "tp": "1"})),
    ),
    "moe": (CrossCheck(
        lambda v: all(_group_holds(v["gpu"], v["model"], int(v["gpus"]), layout)
                      for layout in ("tp", "ep")), "gpus",
        st.fixed_dictionaries({"gpu": st.sampled_from(SINGLE_GPUS),
                               "gpus": st.sampled_from(["2", "4", "8"])})),),
    "disaggregation": (
        CrossCheck(lambda v: _group_holds(v["gpu"], v["model"], int(v["tp"]))
                   and _one_request_fits(v), "tp",
                   # 405B in BF16 on one GPU: 810 GB, more than any GPU holds (in FP4 it fits
                   # the 288 GB of a B300 or MI355X).
                   st.fixed_dictionaries({"model": st.just("llama-3.1-405b"),
                                          "tp": st.just("1"), "weights": st.just("bf16")})),
        CrossCheck(lambda v: v["prefill_gpus"] % int(v["tp"]) == 0, "prefill_gpus",
                   st.fixed_dictionaries({"model": st.just("llama-3.1-8b"), "tp": st.just("2"),
                                          "prefill_gpus": st.sampled_from([1, 3, 5, 7])})),
        CrossCheck(lambda v: v["decode_gpus"] % int(v["tp"]) == 0, "decode_gpus",
                   st.fixed_dictionaries({"model": st.just("llama-3.1-8b"), "tp": st.just("2"),
                                          "prefill_gpus": st.sampled_from([2, 4, 6, 8]),
                                          "decode_gpus": st.sampled_from([1, 3, 5, 7])})),
        CrossCheck(lambda v: v["link"] == "network"
                   or v["prefill_gpus"] + v["decode_gpus"] <= GPUS[v["gpu"]].scale_up_gpus,
                   "link",
                   st.integers(5, 8).flatmap(lambda p: st.fixed_dictionaries({
                       "link": st.just("nvlink"), "model": st.just("llama-3.1-8b"),
                       "tp": st.just("1"), "gpu": st.just("h100"), "prefill_gpus": st.just(p),
                       "decode_gpus": st.integers(9 - p, 8)}))),
        CrossCheck(lambda v: v["link"] == "nvlink"
                   or GPUS[v["gpu"]].scale_out_bytes_per_s is not None, "link",
                   st.fixed_dictionaries({"link": st.just("network"),
                                          "model": st.just("llama-3.1-8b"), "tp": st.just("1"),
                                          "gpu": st.sampled_from(NO_NETWORK)})),
    ),
}


def valid(spec: Input) -> st.SearchStrategy[Any]:
    """Any value the declaration allows (steps are a slider's, not a rule of the contract)."""
    if isinstance(spec, Choice):
        # A pasted model ("custom") is the catalogue's own when its config is pasted
        # (tests/sims/test_model_paste.py): the catalogue's models stand for it here.
        return st.sampled_from([c for c in spec.choices if c != CUSTOM or spec.name != "model"])
    if isinstance(spec, Text):
        return st.just(spec.default)  # what else it holds is the sim's format (its tests)
    if spec.integer:
        return st.integers(int(spec.min), int(spec.max))
    return st.floats(spec.min, spec.max)


def inputs_of(module: ModuleType) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({spec.name: valid(spec) for spec in module.INPUTS})


def _disaggregation_pools(drawn: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Pools made of whole instances of the drawn tp, and a link that can carry the KV
    between them: most draws of the declared ranges alone are refused (a pool of 3 GPUs at
    tp 2), which would starve the search of valid inputs."""
    tp, gpu = int(drawn["tp"]), GPUS[drawn["gpu"]]
    domain = gpu.scale_up_gpus // tp  # instances one NVLink domain holds
    network = gpu.scale_out_bytes_per_s is not None
    links = [link for link, usable in (("network", network), ("nvlink", domain >= 2)) if usable]

    # A pool is at most 8 GPUs (the inputs' range), whatever the domain (72 on an NVL72).
    widest = 8 // tp

    def pools(link: str) -> st.SearchStrategy[dict[str, Any]]:
        most = widest if link == "network" else min(domain - 1, widest)
        return st.integers(1, most).flatmap(lambda p: st.fixed_dictionaries({
            "link": st.just(link), "prefill_gpus": st.just(p * tp),
            "decode_gpus": st.integers(
                1, most if link == "network" else min(domain - p, widest)).map(
                lambda d: d * tp)}))

    if not links:  # no way to move the KV (tp 8 with no network): refused, and filtered
        return st.just(drawn)
    return st.sampled_from(links).flatmap(pools).map(lambda chosen: {**drawn, **chosen})


# Sims whose valid inputs are better drawn than filtered.
VALID_INPUTS: dict[str, Callable[[dict[str, Any]], st.SearchStrategy[dict[str, Any]]]] = {
    "disaggregation": _disaggregation_pools,
}


def valid_inputs(name: str, module: ModuleType) -> st.SearchStrategy[dict[str, Any]]:
    repair = VALID_INPUTS.get(name)
    return inputs_of(module).flatmap(repair) if repair else inputs_of(module)


def run(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    with within(SECONDS, f"{name}.simulate(**{inputs})"):
        return sims.load(name).simulate(**inputs)


# -- invariants: (summary, inputs) -> None, asserting ----------------------------------------


def _fraction(*values: float) -> None:
    assert all(0 <= value <= 1 for value in values), values


def prefix_cache_never_computes_more(summary: dict, inputs: dict) -> None:
    assert summary["computed_tokens_with_cache"] <= summary["computed_tokens_without_cache"]
    assert summary["prefill_s_with_cache"] <= summary["prefill_s_without_cache"]
    _fraction(summary["hit_rate"])


def speculative_speedup_is_bounded_by_lookahead(summary: dict, inputs: dict) -> None:
    assert 1 <= summary["expected_tokens_per_step"] <= inputs["lookahead"] + 1
    assert summary["speedup"] <= inputs["lookahead"] + 1
    assert summary["best_speedup"] <= summary["best_lookahead"] + 1
    assert summary["best_speedup"] >= summary["speedup"]


def tensor_parallel_allreduces_twice_per_layer(summary: dict, inputs: dict) -> None:
    layers = MODELS[inputs["model"]].layers
    assert summary["allreduces_per_token"] == (2 * layers if int(inputs["tp"]) > 1 else 0)
    _fraction(summary["allreduce_fraction"], summary["allreduce_fixed_fraction"])


def chunked_gap_never_exceeds_the_stall(summary: dict, inputs: dict) -> None:
    assert summary["chunked_max_gap_s"] <= summary["unchunked_stall_s"]


def routing_hit_rates_are_fractions(summary: dict, inputs: dict) -> None:
    _fraction(*(summary[f"{policy}_hit_rate"] for policy in ("round_robin", "sticky",
                                                              "cache_aware")))
    _fraction(summary["system_prompt_share"])


def parallelism_busy_fractions_are_fractions(summary: dict, inputs: dict) -> None:
    _fraction(*(summary[f"{layout}_busy_fraction"] for layout in ("tp8", "pp8", "tp4_pp2")))


def spec_sampling_rates_are_bounded(summary: dict, inputs: dict) -> None:
    _fraction(*(value for key, value in summary.items()
                if key.startswith(("acceptance_", "total_variation_"))))
    assert 1 <= summary["tokens_per_step_theory"] <= inputs["lookahead"] + 1
    assert 1 <= summary["tokens_per_step_measured"] <= inputs["lookahead"] + 1


def calculator_step_is_its_parts(summary: dict, inputs: dict) -> None:
    assert summary["time_s"] >= max(summary["compute_s"], summary["memory_s"]) > 0
    assert summary["time_s"] >= summary["collective_s"] >= 0
    assert summary["collective_s"] == 0 or int(inputs["tp"]) > 1
    assert isinstance(summary["fits"], bool)


def roofline_kv_share_is_a_fraction(summary: dict, inputs: dict) -> None:
    _fraction(summary["decode_kv_share"])
    assert {summary["prefill_bound"], summary["decode_bound"]} <= {"compute", "memory"}


def goodput_tails_and_goodput_are_bounded(summary: dict, inputs: dict) -> None:
    """p99 >= p50; goodput <= throughput; attainments are fractions, and meeting both SLOs
    is no more common than meeting either."""
    assert summary["p99_ttft_s"] >= summary["p50_ttft_s"] >= 0
    assert summary["p99_tpot_s"] >= summary["p50_tpot_s"] >= 0
    assert 0 <= summary["goodput_rps"] <= summary["throughput_rps"]
    assert summary["peak_goodput_rps"] >= 0
    _fraction(summary["slo_attainment"], summary["ttft_attainment"], summary["tpot_attainment"])
    assert summary["slo_attainment"] <= min(summary["ttft_attainment"],
                                            summary["tpot_attainment"])
    assert summary["capacity_rps"] <= min(summary["ttft_capacity_rps"],
                                          summary["tpot_capacity_rps"]) + 1e-9
    assert summary["preemptions"] >= 0 and summary["refused"] <= inputs["requests"]


def kv_memory_shares_are_fractions(summary: dict, inputs: dict) -> None:
    """Waste and its parts are shares of the room; a reserved range is never preempted."""
    parts = [summary[k] for k in ("reserved_fraction", "internal_fraction", "external_fraction")]
    _fraction(summary["waste_fraction"], *parts, summary["contiguous_waste_fraction"],
              summary["paged_waste_fraction"])
    assert abs(sum(parts) - summary["waste_fraction"]) < 1e-5
    assert summary["max_concurrent_requests"] >= summary["mean_concurrent_requests"] - 1e-9
    if inputs["allocator"] == "contiguous":
        assert summary["preemptions"] == 0


def _by_kind(classes: dict[tuple[str, str], float]) -> dict[str, float]:
    """A step's time by kind of kernel (GEMMs, attention, MoE, element-wise, collectives),
    whatever their formats."""
    kinds: dict[str, float] = {}
    for (kind, _), seconds in classes.items():
        kinds[kind] = kinds.get(kind, 0.0) + seconds
    return kinds


def quantization_speedups_follow_the_kernel_classes(summary: dict, inputs: dict) -> None:
    """Memory only frees up in narrower formats; speed follows each format's kernels.

    A narrower format is not always faster: each format's kernels have their own fitted
    shares of peak and fixed costs (content/catalogue/kernels/), and on small steps those
    can outweigh the bytes saved (a Blackwell FP8 GEMM's fixed cost is several times a BF16
    one's; Hopper's FP8 decode attention streams a smaller share per sequence than its BF16
    one), so neither "never slower" nor "decode gains at most its bytes' ratio" holds for
    every format. What holds: each speedup lies between the smallest and the largest
    of its kinds of kernel's own (a sum's ratio lies between its terms'); weight-only
    quantization on the same kernels (activations and KV cache in BF16, every kernel of the
    same class and variant: the same constants reading fewer weight bytes) is never slower,
    and its decode gains at most its memory time's ratio (each kernel's time falls by at
    most its memory time's fall); formats that change nothing change nothing."""
    gpu, model, tp = GPUS[inputs["gpu"]], MODELS[inputs["model"]], int(inputs["tp"])
    chosen = precision_for(gpu, model, inputs["weights"], inputs["activations"], inputs["kv"])
    plain = precision_for(gpu, model, "bf16", "bf16", "bf16")
    batch, context = inputs["batch_size"], inputs["context_tokens"]
    same_kernels = (chosen.activations, chosen.kv) == ("bf16", "bf16")
    for name, work in (("decode_speedup", [Work(1, context, count=batch)]),
                       ("prefill_speedup", [Work(context, 0, logit_tokens=1)])):
        base, new = (pricer(gpu, model, precision, tp, "tp").classes(work)
                     for precision in (plain, chosen))
        same_kernels = same_kernels and set(base) == set(new)
        base_kinds, new_kinds = _by_kind(base), _by_kind(new)
        assert set(base_kinds) == set(new_kinds)
        ratios = [base_kinds[kind] / new_kinds[kind] for kind in base_kinds]
        assert min(ratios) * (1 - ROUNDED) <= summary[name] <= max(ratios) * (1 + ROUNDED)
    assert summary["decode_speedup"] == pytest.approx(
        summary["baseline_decode_step_s"] / summary["decode_step_s"], rel=2 * ROUNDED)
    assert summary["prefill_speedup"] == pytest.approx(
        summary["baseline_prefill_s"] / summary["prefill_s"], rel=2 * ROUNDED)
    if chosen == plain:
        assert summary["decode_speedup"] == summary["prefill_speedup"] == 1
    if same_kernels:
        assert summary["prefill_speedup"] >= 1 and summary["decode_speedup"] >= 1
        assert summary["decode_speedup"] <= summary["bytes_ratio"] * (1 + ROUNDED)
    assert summary["max_concurrent_requests"] >= summary["baseline_max_concurrent_requests"]
    assert summary["weights_per_gpu_gb"] <= summary["baseline_weights_per_gpu_gb"]


def moe_reads_between_k_and_all_experts(summary: dict, inputs: dict) -> None:
    assert (summary["experts_per_token"] * (1 - ROUNDED) <= summary["experts_touched_per_layer"]
            <= summary["experts"] * (1 + ROUNDED))
    # Against its dense equivalent (tensor parallel), in the same layout: the same attention
    # and KV cache, at least the active experts' weights and a wider router. Under expert
    # parallelism the bytes are another layout's: each sequence's cache is read once, on its
    # own GPU, where tensor parallelism copies KV heads beyond their number (Qwen3-30B-A3B's
    # 4 over 8 GPUs are each read twice), so it can read fewer than its dense twin.
    if inputs["expert_parallel"] == "off":
        assert summary["bytes_per_step"] >= summary["dense_bytes_per_step"] * (1 - ROUNDED)
    assert summary["tp_step_s"] >= summary["dense_equivalent_step_s"] * (1 - ROUNDED)
    alone = inputs["gpus"] == "1"
    assert (summary["all_to_all_s"] == 0) == alone and (summary["allreduce_s"] == 0) == alone


def disaggregation_tails_are_tails(summary: dict, inputs: dict) -> None:
    for setup in ("colocated", "disaggregated"):
        assert summary[f"{setup}_p99_ttft_s"] >= summary[f"{setup}_p50_ttft_s"]
        assert summary[f"{setup}_p99_itl_s"] >= summary[f"{setup}_p50_itl_s"]
        # No request gets its first token sooner than its prompt's prefill alone takes.
        assert summary[f"{setup}_p50_ttft_s"] >= summary["prefill_alone_s"] * (1 - 1e-6)
    assert summary["splitting_pays"] == (
        summary["disaggregated_p99_ttft_s"] < summary["colocated_p99_ttft_s"]
        and summary["disaggregated_p99_itl_s"] < summary["colocated_p99_itl_s"])
    assert summary["kv_transfer_s"] > 0


def says_its_regime(summary: dict, inputs: dict) -> None:
    """Every result ends with its regime and the error measured there, on the GPU it ran on
    (issue 38); a sim that prices no GPU time says no error applies."""
    note = summary["accuracy"]
    assert isinstance(note, str) and note
    if inputs.get("gpu") == "all":  # the planner: the chosen set-up's GPU, or none chosen
        assert "median error" in note
        if summary.get("met"):
            assert GPUS[summary["best_gpu"]].name in note
    elif "gpu" in inputs:
        assert GPUS[inputs["gpu"]].name in note
    else:
        assert "no measured error applies" in note


def plan_recommends_what_meets_the_target(summary: dict, inputs: dict) -> None:
    """Every set-up is ruled out or a candidate; the cheapest meets the target as its
    latencies are reported (serve's, scaled), and costs its GPUs at their price."""
    assert summary["setups_searched"] == summary["setups_ruled_out"] + summary["candidates"]
    if not summary["met"]:
        assert summary["best_gpus"] == 0
        return
    assert summary["best_ttft_s"] <= inputs["ttft_s"] * (1 + 1e-5)
    assert summary["best_tpot_s"] <= inputs["tpot_s"] * (1 + 1e-5)
    assert summary["best_gpus"] == summary["best_replicas"] * summary["best_gpus_per_replica"]
    price = inputs[f"price_{summary['best_gpu']}"]
    assert summary["best_cost_per_hour"] == pytest.approx(summary["best_gpus"] * price,
                                                          rel=1e-5)
    if inputs["gpu"] != "all":
        assert summary["best_gpu"] == inputs["gpu"]


INVARIANTS: dict[str, Callable[[dict, dict], None]] = {
    "plan": plan_recommends_what_meets_the_target,
    "quantization": quantization_speedups_follow_the_kernel_classes,
    "moe": moe_reads_between_k_and_all_experts,
    "disaggregation": disaggregation_tails_are_tails,
    "prefix_cache": prefix_cache_never_computes_more,
    "speculative": speculative_speedup_is_bounded_by_lookahead,
    "tensor_parallel": tensor_parallel_allreduces_twice_per_layer,
    "chunked_prefill": chunked_gap_never_exceeds_the_stall,
    "routing": routing_hit_rates_are_fractions,
    "parallelism": parallelism_busy_fractions_are_fractions,
    "spec_sampling": spec_sampling_rates_are_bounded,
    "roofline": roofline_kv_share_is_a_fraction,
    "calculator": calculator_step_is_its_parts,
    "goodput": goodput_tails_and_goodput_are_bounded,
    "kv_memory": kv_memory_shares_are_fractions,
}


def test_the_properties_know_every_sim() -> None:
    """A new sim gets its invariant here, or is named as having none beyond the contract."""
    assert set(NAMES) == set(INVARIANTS) | {"batching"}  # batching: see test_batching.py
    assert set(CROSS_CHECKS) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_valid_inputs_give_the_documented_result(name: str, data: st.DataObject) -> None:
    module = sims.load(name)
    inputs = data.draw(valid_inputs(name, module), label="inputs")
    assume(all(check.holds(inputs) for check in CROSS_CHECKS.get(name, ())))
    result = run(name, inputs)
    json.dumps(result, allow_nan=False)  # plain JSON, every number finite
    summary = result["summary"]
    assert list(summary) == list(module.METRICS), "the summary keys are the documented ones"
    says_its_regime(summary, inputs)
    assert result["charts"] and all(spec["data"]["values"] for spec in result["charts"])
    if name in INVARIANTS:
        INVARIANTS[name](summary, inputs)


# -- invalid inputs --------------------------------------------------------------------------

NOT_NUMBERS = (
    st.sampled_from([math.nan, math.inf, -math.inf, True, False, None, "nan", "inf", "", "1e999"])
    | st.lists(st.integers(), max_size=2) | st.dictionaries(st.text(max_size=3), st.integers())
    | st.text(max_size=12).filter(lambda text: not _is_number(text))
)


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text.strip()))
    except ValueError:
        return False


def invalid(spec: Input) -> st.SearchStrategy[Any]:
    """Values the declaration refuses: outside the range, of the wrong type, NaN, infinite,
    booleans, fractions for integer inputs, and unknown choices."""
    if isinstance(spec, Choice):
        unknown = st.text(max_size=12).filter(lambda text: text.strip() not in spec.choices)
        return unknown | st.integers() | st.sampled_from([None, True, math.nan])
    if isinstance(spec, Text):
        too_long = st.integers(spec.max_length + 1, spec.max_length + 50).map(lambda n: "x" * n)
        return too_long | st.integers() | st.floats() | st.sampled_from([None, True, [], {}])
    outside = st.floats(spec.max, 1e300, exclude_min=True) | st.floats(
        -1e300, spec.min, exclude_max=True
    )
    if spec.integer:
        outside |= st.integers(int(spec.max) + 1) | st.integers(max_value=int(spec.min) - 1)
        fraction = st.integers(int(spec.min), int(spec.max) - 1).map(lambda n: n + 0.5)
        outside |= fraction | fraction.map(str)
    return outside | outside.map(str) | NOT_NUMBERS


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_an_invalid_input_raises_the_documented_error(name: str, data: st.DataObject) -> None:
    module = sims.load(name)
    spec = data.draw(st.sampled_from(module.INPUTS), label="input")
    bad = data.draw(invalid(spec), label="value")
    with pytest.raises(ValueError) as caught, within(SECONDS, f"{name} refusing {bad!r}"):
        module.simulate(**{spec.name: bad})
    assert isinstance(caught.value, InputError) and caught.value.input == spec.name
    assert str(caught.value).startswith(f"{spec.name}: expected {spec.allowed()}, got ")


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_an_unknown_input_is_refused_by_name(name: str, data: st.DataObject) -> None:
    module = sims.load(name)
    known = {spec.name for spec in module.INPUTS}
    unknown = data.draw(st.text(min_size=1, max_size=20).filter(lambda n: n not in known))
    with pytest.raises(ValueError) as caught:
        module.simulate(**{unknown: 1})
    assert isinstance(caught.value, InputError) and caught.value.input == unknown
    assert "not an input of this sim" in str(caught.value)


@pytest.mark.parametrize(("name", "index"), [(name, index) for name in sorted(CROSS_CHECKS)
                                             for index in range(len(CROSS_CHECKS[name]))])
# The other checks must hold (one refusal at a time), and most draws break one of them:
# disaggregation's five, with a model drawn from 22 on any GPU and tp, kept 8 draws of 58 on
# one seed. Filtering is the point here, so Hypothesis is told not to fail for it.
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_inputs_valid_alone_but_not_together_are_refused_by_name(
    name: str, index: int, data: st.DataObject
) -> None:
    module = sims.load(name)
    inputs = data.draw(inputs_of(module), label="inputs")
    check = CROSS_CHECKS[name][index]
    names = {spec.name for spec in module.INPUTS}
    breaking = data.draw(check.breaking, label="breaking")
    inputs |= {key: value for key, value in breaking.items() if key in names}
    others = [other for i, other in enumerate(CROSS_CHECKS[name]) if i != index]
    assume(all(other.holds(inputs) for other in others))  # one refusal at a time
    assert not check.holds(inputs)
    with pytest.raises(ValueError) as caught:
        run(name, inputs)
    assert isinstance(caught.value, InputError) and caught.value.input == check.input
    assert str(caught.value).startswith(f"{check.input}: expected ")
