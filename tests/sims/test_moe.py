"""The mixture-of-experts sim: the experts a step reads climb with the batch, the MoE step
climbs faster than its dense equivalent's, each layout wins somewhere; and its page's worked
figures are the physics'."""

from __future__ import annotations

import pytest
from explainer_pages import PROFILE, rendered

from sims import moe
from sims.moe import dense_equivalent, simulate
from sims.physics import (
    GPUS,
    MODELS,
    Work,
    allreduce_fit,
    decode_step,
    memory_fit,
    precision_for,
    touched_experts,
)
from sims.physics.kernels import Op
from sims.physics.pricing import pricer

GPU, MODEL, GROUP, BATCH, CONTEXT = GPUS["h200"], MODELS["deepseek-v3"], 8, 64, 2048
PRECISION = precision_for(GPU, MODEL)


@pytest.fixture(scope="module")
def default() -> dict:
    return simulate()["summary"]


def test_the_models_offered_are_the_catalogues_mixtures_of_experts() -> None:
    assert set(moe.MOE_MODELS) == {key for key, model in MODELS.items() if model.experts}
    assert {"deepseek-v3", "qwen3-235b-a22b", "gpt-oss-120b"} <= set(moe.MOE_MODELS)


@pytest.mark.parametrize("model", moe.MOE_MODELS)
def test_experts_read_grow_from_k_towards_all_of_them(model: str) -> None:
    shape = MODELS[model]
    counts = [touched_experts(shape, batch) for batch in moe.BATCH_SWEEP]
    assert counts[0] == pytest.approx(shape.experts_per_token)
    assert counts == sorted(counts) and counts[-1] <= shape.experts
    # Each sequence added brings fewer new experts than the one before it: doubling the batch
    # never doubles the experts read.
    per_sequence = [(touched_experts(shape, 2 * b) - touched_experts(shape, b)) / b
                    for b in moe.BATCH_SWEEP]
    assert per_sequence == sorted(per_sequence, reverse=True)
    assert all(b < 2 * a for a, b in zip(counts, counts[1:], strict=False))


def test_experts_read_follow_the_formula(default: dict) -> None:
    k, experts = MODEL.experts_per_token, MODEL.experts
    assert default["experts_touched_per_layer"] == pytest.approx(
        experts * (1 - (1 - k / experts) ** BATCH), rel=1e-5)


def test_the_dense_equivalent_has_the_active_parameters_but_the_router(default: dict) -> None:
    twin = dense_equivalent(MODEL)
    router = MODEL.moe_layers * MODEL.hidden * (MODEL.experts - MODEL.experts_per_token)
    assert twin.params_active == MODEL.params_active - router
    assert (MODEL.params_active - twin.params_active) / MODEL.params_active < 0.003
    assert touched_experts(twin, BATCH) == MODEL.experts_per_token


def test_alone_a_sequence_costs_what_its_dense_equivalent_costs() -> None:
    summary = simulate(batch_size=1, expert_parallel="off")["summary"]
    assert summary["decode_step_s"] == pytest.approx(summary["dense_equivalent_step_s"],
                                                     rel=0.01)


def test_the_moe_step_climbs_with_the_batch_faster_than_its_dense_equivalent() -> None:
    ratios = [simulate(batch_size=batch, expert_parallel="off")["summary"]["moe_over_dense"]
              for batch in (1, 8, 64)]
    assert ratios == sorted(ratios) and ratios[-1] > 2


def test_the_summary_is_the_physics_at_the_defaults(default: dict) -> None:
    ep = decode_step(GPU, MODEL, BATCH, CONTEXT, GROUP, PRECISION, "ep")
    tp = decode_step(GPU, MODEL, BATCH, CONTEXT, GROUP, PRECISION, "tp")
    assert default["decode_step_s"] == pytest.approx(ep.time_s, rel=1e-5)
    assert default["all_to_all_s"] == pytest.approx(ep.collective_s, rel=1e-5)
    assert default["allreduce_s"] == pytest.approx(tp.collective_s, rel=1e-5)
    assert default["bytes_per_step"] == pytest.approx(ep.bytes / 1e9, rel=1e-5)


def test_each_layout_wins_somewhere() -> None:
    small, large = simulate(batch_size=1)["summary"], simulate(batch_size=512)["summary"]
    assert small["tp_step_s"] < small["ep_step_s"]
    assert large["ep_step_s"] < large["tp_step_s"]
    # A latent cache held whole by every GPU under tensor parallelism does not fit at 512.
    assert simulate(batch_size=512, expert_parallel="off")["summary"]["fits"] is False
    assert large["fits"] is True


def test_one_gpu_waits_for_nobody() -> None:
    summary = simulate(model="qwen3-30b-a3b", gpus="1")["summary"]
    assert summary["all_to_all_s"] == summary["allreduce_s"] == 0
    assert summary["tp_step_s"] == pytest.approx(summary["ep_step_s"])


def test_a_group_the_gpu_cannot_form_is_refused_by_the_gpus_input() -> None:
    with pytest.raises(ValueError, match="^gpus: expected 1 to 1 GPUs"):
        simulate(gpu="l40s", gpus="2")


def test_the_step_chart_marks_the_current_batch_and_layout() -> None:
    rows = simulate(batch_size=48, expert_parallel="off")["charts"][1]["data"]["values"]
    assert [(row["series"], row["batch"]) for row in rows if row["current"]] == [(moe.TP, 48)]


# -- the page ---------------------------------------------------------------------------

HOPPER = GPU.kernels


def operators(layout: str) -> list[tuple[float, Op]]:
    """Every operator of one GPU's default step as (layers, Op), as the physics prices it."""
    record: list[tuple[float, Op]] = []
    pricer(GPU, MODEL, PRECISION, GROUP, layout)._price([Work(1, CONTEXT, count=BATCH)], None,
                                                         record)
    return record


def classes(layout: str) -> dict[tuple[str, str], float]:
    return pricer(GPU, MODEL, PRECISION, GROUP, layout).classes([Work(1, CONTEXT, count=BATCH)])


def _algorithm(implementation: str, traffic: str):  # noqa: ANN202 - an AllReduceAlgorithm
    """One algorithm of an all-reduce implementation in the Hopper profile."""
    return next(algorithm for algorithm in HOPPER.all_reduce[implementation].algorithms
                if algorithm.traffic == traffic)


def page_figures() -> list[tuple[str, float, str]]:
    ep = decode_step(GPU, MODEL, BATCH, CONTEXT, GROUP, PRECISION, "ep")
    tp = decode_step(GPU, MODEL, BATCH, CONTEXT, GROUP, PRECISION, "tp")
    dense = decode_step(GPU, dense_equivalent(MODEL), BATCH, CONTEXT, GROUP, PRECISION, "tp")
    expert_mb = MODEL.expert_params / 1e6  # FP8: one byte a weight
    touched = touched_experts(MODEL, BATCH)
    k = MODEL.experts_per_token
    [(_, experts_op)] = [(n, op) for n, op in operators("ep") if op.kind == "moe"]
    ep_matmuls = [(n, op) for n, op in operators("ep") if op.kind == "gemm" and op.variant == "fp8"]
    ep_classes, tp_classes = classes("ep"), classes("tp")
    gemm, experts = HOPPER.gemm["fp8"], HOPPER.moe["fp8"]
    nccl, custom = _algorithm("nccl", "ring"), _algorithm("custom", "one_shot")
    message = BATCH * MODEL.hidden * 2  # each token's hidden state in BF16
    return [
        ("An H200 reads {} TB/s from HBM", GPU.hbm_bytes_per_s / 1e12, ".1f"),
        ("| FP8 matmul (GEMM) | {}% |", gemm.memory_efficiency * 100, PROFILE),
        ("(GEMM) | 79.4% | {} µs |", gemm.fixed_s * 1e6, PROFILE),
        ("ns more per routed row) | {}% |", experts.memory_efficiency * 100, PROFILE),
        ("per routed row) | {}% | ", experts.memory_efficiency * 100, PROFILE),
        ("finalize; {} ns more per", experts.per_row_s * 1e9, PROFILE),
        (f"| {format(experts.memory_efficiency * 100, PROFILE)}% | {{}} µs |",
         experts.fixed_s * 1e6, PROFILE),
        ("in and out {} µs at", experts_op.memory_s * 1e6, ".1f"),
        ("at {}% of 4.8 TB/s", experts.memory_efficiency * 100, PROFILE),
        ("over eight GPUs | {}% of the links", nccl.bus_efficiency * 100, PROFILE),
        ("of the links | {} µs | | all-reduce", nccl.latency_s[8] * 1e6, PROFILE),
        ("every other's message) | {}% of the links", custom.bus_efficiency * 100, PROFILE),
        (f"message) | {format(custom.bus_efficiency * 100, PROFILE)}% of the links | {{}} µs |",
         custom.latency_s[8] * 1e6, PROFILE),
        ("projections of {} by 2,048", MODEL.hidden, ",d"),
        ("7,168 by {}: 3 ×", MODEL.expert_ffn, ",d"),
        ("2,048 = {} weights", MODEL.expert_params, ",d"),
        ("weights, {} MB in FP8", expert_mb, ".1f"),
        ("of {} MoE layers make", MODEL.moe_layers, "d"),
        ("layers make {} GB of the", MODEL.expert_weight_bytes(PRECISION) / 1e9, ".1f"),
        ("of the {} GB the weights", MODEL.weight_bytes(PRECISION) / 1e9, ".1f"),
        ("output layer: {} billion of the", MODEL.params_active / 1e9, ".2f"),
        ("billion of the {} billion", MODEL.params / 1e9, ".2f"),
        ("experts, has {} billion", dense_equivalent(MODEL).params_active / 1e9, ".2f"),
        ("(1 - 8/256)^64 = {}, so", 1 - (1 - k / MODEL.experts) ** BATCH, ".3f"),
        ("256 × 0.869 = {} experts", touched, ".1f"),
        ("× 44.0 MB = {} GB of expert", MODEL.moe_layers * touched * expert_mb / 1e3, ".1f"),
        ("58 × 8 × 44.0 MB = {} GB", MODEL.moe_layers * k * expert_mb / 1e3, ".1f"),
        ("the step moves {} GB against", ep.bytes / 1e9, ".1f"),
        ("GB against {} GB. 4.", dense.bytes / 1e9, ".1f"),
        ("Each GPU holds {} experts of each layer", MODEL.experts // GROUP, "d"),
        ("the batch touches {} of them", touched / GROUP, ".1f"),
        ("them on average: {} GB to read", touched / GROUP * expert_mb / 1e3, ".2f"),
        ("with the {} routed rows", BATCH * k // GROUP, "d"),
        ("and back, {} µs.", experts_op.time_s * 1e6, ".1f"),
        ("the experts take {} ms. The FP8",
         MODEL.moe_layers * experts_op.time_s * 1e3, ".2f"),
        ("the router) take {} ms,", ep_classes["gemm", "fp8"] * 1e3, ".2f"),
        ("ms, {} ms of it fixed costs", sum(n * op.fixed_s for n, op in ep_matmuls) * 1e3,
         ".2f"),
        ("in BF16, {} ms; attention", ep_classes["gemm", "bf16"] * 1e3, ".2f"),
        ("the GPU's {} sequences", BATCH // GROUP, "d"),
        ("sequences {} ms; the norms", ep_classes["decode_attention", "bf16"] * 1e3, ".2f"),
        ("the norms {} ms. That is", ep_classes["elementwise", ""] * 1e3, ".2f"),
        ("That is {} ms of operators", ep.ops_s * 1e3, ".2f"),
        ("and the {} all-to-alls", ep.collectives, "d"),
        ("touches, {} ms of MoE layers", tp_classes["moe", "fp8"] * 1e3, ".2f"),
        ("the other matmuls, {} ms,",
         (tp_classes["gemm", "fp8"] + tp_classes["gemm", "bf16"]) * 1e3, ".2f"),
        ("sequences, {} ms of attention", tp_classes["decode_attention", "bf16"] * 1e3, ".2f"),
        ("with the norms, {} ms of operators", tp.ops_s * 1e3, ".2f"),
        ("of the {} all-reduces", tp.collectives, "d"),
        ("hidden states in BF16, {} bytes", message, ",d"),
        ("the same all-reduces are {} ms", dense.collective_s * 1e3, ".2f"),
    ]


@pytest.mark.parametrize(("phrase", "value", "spec"), page_figures())
def test_check_it_yourself_figures_match_the_physics(phrase: str, value: float, spec: str) -> None:
    assert phrase.format(format(value, spec)) in rendered("moe")


def test_the_tensor_parallel_all_reduces_run_the_engines_one_shot_kernel() -> None:
    """The page: tensor parallelism's all-reduces carry a few tokens' hidden states and run
    the engine's one-shot kernel; the all-to-alls go through NCCL, whose fixed latency is
    several times the kernel's."""
    one_shot, ring = _algorithm("custom", "one_shot"), _algorithm("nccl", "ring")
    for batch in (1, BATCH):
        latency, _ = allreduce_fit(GPU, batch * MODEL.hidden * 2, GROUP)
        assert latency == one_shot.latency_s[GROUP]
    assert ring.latency_s[GROUP] >= 3 * one_shot.latency_s[GROUP]


def test_page_starts_at_the_defaults_it_derives_from() -> None:
    assert {spec.name: spec.default for spec in moe.INPUTS} == {
        "model": "deepseek-v3", "model_config": "", "gpu": "h200", "gpus": "8",
        "expert_parallel": "on",
        "batch_size": 64, "context_tokens": 2048,
    }
    text = rendered("moe")
    assert "{{" not in text
    assert "DeepSeek-V3 on eight H200s, in its own FP8" in text
    assert PRECISION.weights == PRECISION.activations == "fp8" and PRECISION.kv == "bf16"
    assert GPU.kernels.key == "hopper"


def test_page_claims_hold_in_the_sim() -> None:
    assert (MODEL.experts, MODEL.experts_per_token, MODEL.moe_layers, MODEL.layers) == (
        256, 8, 58, 61)
    assert MODEL.shared_experts == 1
    assert MODELS["gpt-oss-120b"].experts == 128 and MODELS["gpt-oss-120b"].experts_per_token == 4
    assert touched_experts(MODEL, 128) > 0.98 * MODEL.experts  # "past 128, nearly all 256"
    fit = memory_fit(GPU, MODEL, 512, CONTEXT + 1, GROUP, PRECISION, "tp")
    assert not fit.fits
