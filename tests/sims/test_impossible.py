"""Nothing impossible (issue 38): the shared physics held to laws no deployment can break.

Fitted constants may be wrong by a few percent and stay honest; these laws are not about
accuracy. Each holds at the catalogue's peak rates, where a kernel that reaches only a
share of peak can only be slower:

- no collective moves bytes faster than the links under it (the topology's: one link per
  pair of GPUs on MI300X's full mesh, the GPU's whole bandwidth through an NVSwitch);
- no step beats its roofline: one GPU's FLOPs at its fastest tensor-core rate, its bytes at
  its full HBM bandwidth;
- under data-parallel attention ("ep") a sequence's KV cache lives whole on one GPU;
- a decode step is never faster than reading the weights it uses (and the KV it attends to)
  at peak bandwidth.

Each test sweeps the catalogue (every GPU, every model whose weights fit the group, the
formats the GPU offers, the groups and layouts check_group allows) and collects every case
that breaks its law, so one failure lists them all with our figure and the bound.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator

import pytest

from sims.__main__ import main
from sims.kit.contract import InputError
from sims.physics import (
    GPUS,
    LAYOUTS,
    MODELS,
    Gpu,
    Model,
    Precision,
    StepCost,
    Work,
    all_to_all_time,
    allreduce_time,
    check_group,
    decode_step,
    host_link_time,
    memory_fit,
    p2p_time,
    precision_for,
    prefill,
    scale_out_time,
    tp_degrees,
)
from sims.physics import kernels as kernel_classes
from sims.physics.cache import INDEXER_PRECISION
from sims.physics.collectives import IMPLEMENTATIONS, all_gather_time, link_bytes_per_s
from sims.physics.kinds import CHUNKED, COMPRESSED, LINEAR, SPARSE
from sims.physics.precision import PRECISIONS, bytes_per_value, wider
from sims.physics.pricing import pricer
from sims.physics.shapes import EMBEDDING_PRECISION
from sims.physics.step import experts_per_gpu
from sims.serving.kv_space import kv_space

GPU_KEYS = sorted(GPUS)


def _one_per_class(keys: list[str]) -> list[str]:
    """The first GPU (by key) of each class that prices differently: kernel profile,
    topology and scale-up domain. GPUs of one class differ only in their figures, which the
    sweeps' bounds scale with, so the full step sweeps run one of each (9 of 15 GPUs today:
    this file took 45 s with every GPU of 13 swept, 25 s with one per class of 15, on a
    shared two-core machine); the cheaper checks still run every GPU."""
    chosen: dict[tuple[str, str, int], str] = {}
    for key in keys:
        gpu = GPUS[key]
        chosen.setdefault((gpu.kernels.key, gpu.topology, gpu.scale_up_gpus), key)
    return sorted(chosen.values())


SWEPT_GPU_KEYS = _one_per_class(GPU_KEYS)
MOE_KEYS = sorted(key for key, model in MODELS.items() if model.experts)
ROUNDING = 1e-9  # relative: a figure may sit on its bound, within floating-point rounding
SHOWN = 30  # failing cases a message lists in full

# Messages from one byte to 512 MiB, on powers of two and between them.
MESSAGE_BYTES = (1, 100, 4096, 65_536, 1_000_000, 1 << 20, 8_000_000, 1 << 24, 1 << 26,
                 100_000_000, 1 << 29)

# A decode step: sequences and the tokens each has cached.
DECODE_BATCHES = (1, 3, 8, 64, 512)
DECODE_CONTEXTS = (0, 1, 4096, 131_072)
# A prefill: new tokens per sequence (a short one still runs the decode kernel), on top of
# cached ones, for a few sequences.
PREFILL_TOKENS = (1, 33, 2048, 16_384)
PREFILL_CACHED = (0, 4096)
PREFILL_BATCHES = (1, 4)
# A mixed step: a prefill chunk (not the last: no logits; the last: one) behind decodes.
MIXED = ((Work(512, 0, logit_tokens=0), Work(1, 2048, count=16)),
         (Work(2048, 8192, logit_tokens=1), Work(1, 32_768, count=64)),
         (Work(8192, 0, logit_tokens=1), Work(2, 100, count=256)))


def _breaks(ours: float, bound: float) -> bool:
    return ours < bound * (1 - ROUNDING)


def _listing(failures: list[str], law: str) -> str:
    more = f"\n... and {len(failures) - SHOWN} more" if len(failures) > SHOWN else ""
    return f"{len(failures)} case(s) break the law that {law}:\n" + "\n".join(
        failures[:SHOWN]) + more


# -- the catalogue's deployments ---------------------------------------------------------


def _precisions(gpu: Gpu, model: Model) -> list[Precision]:
    """The checkpoint's formats and each format for the weights (computing in it where the
    GPU has its rate, weight-only otherwise), each with a KV cache of every format; and
    activations in each format the GPU computes in, over the checkpoint's weights."""
    chosen = [precision_for(gpu, model, weights, kv=kv)
              for weights in ("native", *PRECISIONS) for kv in PRECISIONS]
    chosen += [precision_for(gpu, model, activations=fmt) for fmt in gpu.dense_flops]
    return list(dict.fromkeys(chosen))


def _groups(gpu: Gpu, model: Model) -> Iterator[tuple[int, str]]:
    """(GPUs, layout) of every group check_group lets a sim ask for: the tensor-parallel
    degrees, and the whole scale-up domain (72 GPUs on an NVL72, for expert parallelism)."""
    for gpus in sorted({*tp_degrees(gpu), gpu.scale_up_gpus}):
        for layout in LAYOUTS:
            try:
                check_group(gpu, model, gpus, layout)
            except InputError:
                continue
            yield gpus, layout


def _deployments(gpu: Gpu) -> Iterator[tuple[Model, int, str, Precision]]:
    """Every (model, GPUs, layout, formats) on `gpu` whose weights fit the group."""
    for model in MODELS.values():
        for gpus, layout in _groups(gpu, model):
            for precision in _precisions(gpu, model):
                if memory_fit(gpu, model, 0, 0, gpus, precision, layout).fits:
                    yield model, gpus, layout, precision


def _name(gpu: Gpu, model: Model, gpus: int, layout: str, precision: Precision) -> str:
    return f"{gpu.key} {model.key} {layout} x{gpus} ({precision.label})"


def test_the_sweeps_cover_every_gpu_model_layout_and_format() -> None:
    """The sweeps below are only as strong as what they reach: every GPU and model of the
    catalogue, both layouts, and every format as weights and as KV."""
    seen = [(gpu.key, model.key, layout, precision)
            for gpu in GPUS.values() for model, _, layout, precision in _deployments(gpu)]
    assert {gpu for gpu, *_ in seen} == set(GPUS)
    assert {model for _, model, *_ in seen} == set(MODELS)
    assert {layout for _, _, layout, _ in seen} == set(LAYOUTS)
    assert {p.weights for *_, p in seen} == {p.kv for *_, p in seen} == set(PRECISIONS)


# -- 1. No collective beats its links ----------------------------------------------------


def _links_per_pair(gpu: Gpu) -> float:
    """One direction of the link between two GPUs of a full mesh: the catalogue gives each
    GPU's links to its scale_up_gpus - 1 peers together (MI300X: 7 x 64 GB/s)."""
    return gpu.scale_up_bytes_per_s / (gpu.scale_up_gpus - 1)


@pytest.mark.parametrize("gpu_key", GPU_KEYS)
def test_a_gpu_reaches_its_group_over_no_more_than_its_links(gpu_key: str) -> None:
    """One GPU's bandwidth to the others of a group is no more than its links give: its
    whole scale-up bandwidth through a switch, and on a full mesh the n - 1 links to the
    others of the group only (the links to GPUs outside the group carry nothing for it)."""
    gpu = GPUS[gpu_key]
    for group in range(2, gpu.scale_up_gpus + 1):
        ours = link_bytes_per_s(gpu, group)
        links = (_links_per_pair(gpu) * (group - 1) if gpu.topology == "mesh"
                 else gpu.scale_up_bytes_per_s)
        assert ours <= links * (1 + ROUNDING), (
            f"{gpu_key}, {group} GPUs ({gpu.topology}): {ours / 1e9:.4g} GB/s to the group, "
            f"its links give {links / 1e9:.4g} GB/s")


@pytest.mark.parametrize("gpu_key", GPU_KEYS)
def test_no_collective_moves_bytes_faster_than_its_links(gpu_key: str) -> None:
    """An all-reduce of B bytes over n GPUs that reduce at the GPUs (ring, tree, one- and
    two-shot kernels) sends at least 2(n-1)/n x B out of each GPU (each must send its other
    n-1 shares for reduction and the reduced shares back); one that reduces in the switch
    (NVLink SHARP, only where there is a switch) still sends each GPU's whole message in and
    reads the sum back, B each way. So it takes at least that over the GPU's link bandwidth
    to its group (collectives.link_bytes_per_s, held to the links by the test above). An
    all-to-all sends (n-1)/n of each GPU's bytes to the others, a send all its bytes over one
    link. Whatever the message, the implementation or the group."""
    gpu = GPUS[gpu_key]
    implementations = [name for name in IMPLEMENTATIONS if _runs(gpu, name)]
    in_switch = gpu.topology == "switch" and any(
        algorithm.traffic == "in_switch" for algorithm in gpu.kernels.all_reduce["nccl"].algorithms)
    failures = []
    for group in range(2, gpu.scale_up_gpus + 1):
        link = link_bytes_per_s(gpu, group)
        for size in MESSAGE_BYTES:
            for implementation in implementations:
                ours = allreduce_time(gpu, size, group, implementation)
                at_gpus = 2 * (group - 1) / group * size / link
                bound = min(at_gpus, size / link) if in_switch else at_gpus
                if _breaks(ours, bound):
                    failures.append(f"all-reduce ({implementation}) of {size} B over {group} "
                                    f"GPUs: {ours:.6g} s < {bound:.6g} s at {link / 1e9:.4g} "
                                    f"GB/s per GPU")
            ours = all_to_all_time(gpu, size, group)
            bound = (group - 1) / group * size / link
            if _breaks(ours, bound):
                failures.append(f"all-to-all of {size} B per GPU over {group} GPUs: "
                                f"{ours:.6g} s < {bound:.6g} s")
            # An all-gather (or reduce-scatter) of `size` bytes in all: each GPU receives
            # (or sends) all but its own share.
            ours = all_gather_time(gpu, size, group)
            if _breaks(ours, bound):
                failures.append(f"all-gather of {size} B over {group} GPUs: "
                                f"{ours:.6g} s < {bound:.6g} s")
    pair = link_bytes_per_s(gpu, 2) if gpu.scale_up_gpus > 1 else None
    for size in MESSAGE_BYTES:
        if pair is not None and _breaks(p2p_time(gpu, size), size / pair):
            failures.append(f"send of {size} B: {p2p_time(gpu, size):.6g} s < "
                            f"{size / pair:.6g} s over one link of {pair / 1e9:.4g} GB/s")
        if gpu.scale_out_bytes_per_s and _breaks(scale_out_time(gpu, size),
                                                 size / gpu.scale_out_bytes_per_s):
            failures.append(f"send of {size} B over the network beats its rate")
        if gpu.host_link_bytes_per_s and _breaks(host_link_time(gpu, size),
                                                 size / gpu.host_link_bytes_per_s):
            failures.append(f"copy of {size} B over the host link beats its rate")
    assert not failures, _listing(failures, f"no collective on the {gpu.name} beats its "
                                            f"links")


# content/catalogue/gpus/mi300x.yaml: "Peak Infinity Fabric link bandwidth 128 GB/s (64 each
# way); each GPU has a link to each of its seven peers".
XGMI_LINK_BYTES_PER_S = 64e9
ISSUE_MESSAGE_BYTES = 67_108_864  # 64 MiB, the issue's case


def test_the_mi300x_catalogue_gives_one_xgmi_link_per_pair() -> None:
    """The mesh's figures as the datasheet row gives them: seven links of 64 GB/s a way."""
    mi300x = GPUS["mi300x"]
    assert mi300x.topology == "mesh"
    assert _links_per_pair(mi300x) == pytest.approx(XGMI_LINK_BYTES_PER_S)
    assert link_bytes_per_s(mi300x, 2) <= XGMI_LINK_BYTES_PER_S * (1 + ROUNDING)


def _runs(gpu: Gpu, implementation: str) -> bool:
    """Whether the GPU's profile has the implementation: custom kernels where it names them,
    NVLink SHARP only where NVSwitch links the GPUs."""
    algorithms = gpu.kernels.all_reduce["nccl"].algorithms
    if implementation == "custom":
        return "custom" in gpu.kernels.all_reduce
    if implementation == "nvls":
        return gpu.topology == "switch" and any(a.traffic == "in_switch" for a in algorithms)
    return True


def test_no_in_switch_reduction_without_a_switch() -> None:
    """NVLink SHARP reduces in the NVSwitch: a mesh of point-to-point links (MI300X) has
    none to force, and says so rather than pricing one."""
    with pytest.raises(ValueError, match="no in-switch all-reduce"):
        allreduce_time(GPUS["mi300x"], ISSUE_MESSAGE_BYTES, 2, "nvls")


@pytest.mark.parametrize("implementation", [name for name in IMPLEMENTATIONS
                                            if _runs(GPUS["mi300x"], name)])
def test_two_mi300x_all_reduce_no_faster_than_one_xgmi_link(implementation: str) -> None:
    """Issue 38's impossible result: two MI300X share one xGMI link (64 GB/s each way), so
    an all-reduce of 64 MiB between them cannot show more than 64 GB/s of bus bandwidth
    (once reported as 0.234 ms, 287 GB/s)."""
    seconds = allreduce_time(GPUS["mi300x"], ISSUE_MESSAGE_BYTES, 2, implementation)
    bus = 2 * (2 - 1) / 2 * ISSUE_MESSAGE_BYTES / seconds
    assert bus <= XGMI_LINK_BYTES_PER_S, (
        f"{implementation}: {seconds * 1e3:.4g} ms, {bus / 1e9:.4g} GB/s of bus bandwidth "
        f"over one {XGMI_LINK_BYTES_PER_S / 1e9:.0f} GB/s link")


def test_the_allreduce_command_for_two_mi300x_respects_the_link(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same law through the command outside tools call:
    `python -m sims allreduce --gpu mi300x --tp 2 --bytes 67108864`."""
    assert main(["allreduce", "--gpu", "mi300x", "--tp", "2", "--bytes",
                 str(ISSUE_MESSAGE_BYTES)]) == 0
    seconds = json.loads(capsys.readouterr().out)["time_s"]
    bus = ISSUE_MESSAGE_BYTES / seconds  # 2(n-1)/n is 1 for two GPUs
    assert bus <= XGMI_LINK_BYTES_PER_S, (
        f"the command reports {seconds * 1e3:.4g} ms: {bus / 1e9:.4g} GB/s of bus bandwidth "
        f"over one {XGMI_LINK_BYTES_PER_S / 1e9:.0f} GB/s link")


# -- 2. No step beats its roofline at peak rates -----------------------------------------


def _peak_flops(gpu: Gpu, precision: Precision) -> float:
    """The fastest tensor-core rate any of the step's operators computes at: each matmul runs
    at the wider of its weights' and the activations' formats (embedding and head in BF16),
    attention at the wider of the activations' and the KV cache's."""
    return max(gpu.flops(wider(fmt, precision.activations)) for fmt in (
        precision.weights, precision.experts, EMBEDDING_PRECISION, precision.kv))


def _roofline_s(cost: StepCost, gpu: Gpu, precision: Precision, gpus: int
                ) -> tuple[float, float]:
    """(compute, memory) time of one GPU's share of the step at peak rates.

    We compare one GPU's share, taken as 1/n of the StepCost's own figures. StepCost.flops
    and .bytes are totals: the step's operators whole, every GPU's share together
    (sims.physics.step: "as if on one GPU"), except a few terms counted for one GPU only:
    the element-wise kernels' bytes, latent attention's decode FLOPs and cached latents
    under "tp", and under "ep" the busiest GPU's attention and dense layers (its
    ceil(S / n) sequences), the routed experts being every GPU's together. Either way no GPU
    of n does less than 1/n of what is counted, so 1/n of the FLOPs at the fastest peak and
    1/n of the bytes at full bandwidth are a floor under one GPU's time."""
    return (cost.flops / gpus / _peak_flops(gpu, precision),
            cost.bytes / gpus / gpu.hbm_bytes_per_s)


def _steps(gpu: Gpu, model: Model, gpus: int, layout: str, precision: Precision
           ) -> Iterator[tuple[str, StepCost]]:
    """Decode steps, prefills and mixed steps (a prefill chunk behind decodes)."""
    for batch in DECODE_BATCHES:
        for context in DECODE_CONTEXTS:
            yield (f"decode batch {batch} context {context}",
                   decode_step(gpu, model, batch, context, gpus, precision, layout))
    for tokens in PREFILL_TOKENS:
        for cached in PREFILL_CACHED:
            for batch in PREFILL_BATCHES:
                yield (f"prefill {batch} x {tokens} tokens after {cached}",
                       prefill(gpu, model, tokens, batch, cached, gpus, precision, layout))
    priced = pricer(gpu, model, precision, gpus, layout)
    for work in MIXED:
        yield f"mixed {list(work)}", priced.price(work)


@pytest.mark.parametrize("gpu_key", SWEPT_GPU_KEYS)
def test_no_step_beats_its_roofline_at_peak_rates(gpu_key: str) -> None:
    """A GPU cannot compute faster than its peak tensor-core rate nor move bytes faster than
    its HBM's peak bandwidth, so no step takes less than one GPU's share of its FLOPs at the
    fastest rate it computes in, nor less than that share of its bytes at peak bandwidth
    (see _roofline_s for which share). One GPU of each class (_one_per_class): a sweep
    takes seconds, and every GPU of a class prices the same way."""
    gpu = GPUS[gpu_key]
    failures = []
    for model, gpus, layout, precision in _deployments(gpu):
        for what, cost in _steps(gpu, model, gpus, layout, precision):
            compute, memory = _roofline_s(cost, gpu, precision, gpus)
            if _breaks(cost.time_s, max(compute, memory)):
                failures.append(
                    f"{_name(gpu, model, gpus, layout, precision)} {what}: {cost.time_s:.6g} s "
                    f"< {max(compute, memory):.6g} s (FLOPs {compute:.6g} s, bytes "
                    f"{memory:.6g} s)")
    assert not failures, _listing(failures, "no step beats its roofline at peak rates")


# Operator shapes, as (tokens, k, n) of a matmul: one token to a long prefill, a head's
# width to a large MLP.
MATMULS = [(tokens, k, n) for tokens in (1, 16, 256, 4096, 65_536)
           for k, n in ((128, 128), (4096, 6144), (8192, 57_344))]


@pytest.mark.parametrize("gpu_key", GPU_KEYS)
def test_no_kernel_class_runs_above_peak(gpu_key: str) -> None:
    """The roofline per kernel, whose sum a step is: each class of sims.physics.kernels,
    priced with the GPU's profile in every format it computes in, takes at least its FLOPs
    (counted here from its shape) at the peak rate and its bytes at peak bandwidth. A
    profile claiming more than 100% of either would break this before any step did."""
    gpu = GPUS[gpu_key]
    profile, bandwidth = gpu.kernels, gpu.hbm_bytes_per_s
    failures = []
    for fmt in gpu.dense_flops:
        peak = gpu.flops(fmt)
        value = bytes_per_value(fmt)
        for tokens, k, n in MATMULS:
            op = kernel_classes.gemm(profile, fmt, gpu.dense_flops, bandwidth, tokens, k, n, value,
                                     value)
            flops = 2 * tokens * k * n
            moved = k * n * value + tokens * (k * value + n * kernel_classes.ACTIVATION_OUT_BYTES)
            bound = max(flops / peak, moved / bandwidth)
            if _breaks(op.time_s, bound):
                failures.append(f"GEMM {fmt} {tokens}x{k}x{n}: {op.time_s:.6g} s < {bound:.6g}")
            # The same tokens through one MoE layer's experts, k routed each, all touched.
            touched, routed = min(128, tokens * 8), tokens * 8
            op = kernel_classes.moe(profile, fmt, fmt, gpu.dense_flops, bandwidth, touched,
                                    routed, k, n, value, value, tokens, 128)
            flops, moved = 6 * routed * k * n, touched * 3 * k * n * value
            bound = max(flops / peak, moved / bandwidth)
            if _breaks(op.time_s, bound):
                failures.append(f"MoE {fmt} {tokens} tokens {k}x{n}: {op.time_s:.6g} s < "
                                f"{bound:.6g}")
            # Attention over `tokens` new tokens of 128 heads of 128 (flops and bytes as the
            # pricer counts them), and a decode over that many cached tokens per sequence.
            flops, moved = 4 * 128 * 128 * tokens * tokens / 2, tokens * 128 * 128 * 4 * value
            op = kernel_classes.prefill_attention(profile, fmt, gpu.dense_flops, bandwidth,
                                                  flops, moved, 128)
            bound = max(flops / peak, moved / bandwidth)
            if _breaks(op.time_s, bound):
                failures.append(f"prefill attention {fmt} {tokens} tokens: {op.time_s:.6g} s "
                                f"< {bound:.6g}")
            cached = tokens * k * n * value
            op = kernel_classes.decode_attention(profile, fmt, bandwidth, cached, 64, 64 * 8)
            if _breaks(op.time_s, cached / bandwidth):
                failures.append(f"decode attention {fmt} over {cached:.4g} B: {op.time_s:.6g} "
                                f"s < {cached / bandwidth:.6g}")
            op = kernel_classes.elementwise(profile, bandwidth, cached, 3)
            if _breaks(op.time_s, cached / bandwidth):
                failures.append(f"element-wise over {cached:.4g} B: {op.time_s:.6g} s < "
                                f"{cached / bandwidth:.6g}")
    assert not failures, _listing(failures, f"no kernel on the {gpu.name} runs above peak")


# -- 3. No sequence's KV is split across data-parallel attention ranks ------------------


def _ep_groups() -> Iterator[tuple[Gpu, Model, int]]:
    """Every (GPU, mixture of experts, GPUs > 1) the expert-parallel layout allows."""
    for gpu in GPUS.values():
        for key in MOE_KEYS:
            for gpus, layout in _groups(gpu, MODELS[key]):
                if layout == "ep" and gpus > 1:
                    yield gpu, MODELS[key], gpus


def test_the_expert_parallel_sweep_is_not_empty() -> None:
    """The laws below hold over something: every mixture of experts at every size."""
    seen = {(model.key, gpus) for _, model, gpus in _ep_groups()}
    assert {model for model, _ in seen} == set(MOE_KEYS)
    assert {gpus for _, gpus in seen} == {2, 4, 8, 72}  # 72: an NVL72 rack's whole domain


def test_data_parallel_attention_keeps_each_sequence_whole_on_one_gpu() -> None:
    """Under "ep" each GPU runs attention for its own sequences, so a sequence's KV is
    on one GPU, whole: with fewer sequences than GPUs the busiest GPU holds one whole
    sequence's KV (never 1/n of it), with k x n sequences k whole ones, with one more k + 1
    (pigeonhole: some GPU has ceil(S / n)). Sequences of different lengths: the busiest
    holds at least the longest whole, and at least 1/n of them all."""
    failures = []
    for gpu, model, gpus in _ep_groups():
        for kv in PRECISIONS:
            precision = precision_for(gpu, model, kv=kv)
            for context in (1, 4096, 131_072):
                one = model.kv_bytes(context, kv)
                for batch in sorted({1, gpus - 1, gpus, 3 * gpus, 3 * gpus + 1}):
                    held = memory_fit(gpu, model, batch, context, gpus, precision,
                                      "ep").kv_per_gpu_bytes
                    whole = math.ceil(batch / gpus) * one
                    if held != pytest.approx(whole, rel=ROUNDING):
                        failures.append(
                            f"{_name(gpu, model, gpus, 'ep', precision)} {batch} sequences of "
                            f"{context} tokens: {held / 1e9:.4g} GB of KV on the busiest GPU, "
                            f"{math.ceil(batch / gpus)} whole sequence(s) are "
                            f"{whole / 1e9:.4g} GB")
            longest = model.kv_bytes(131_072, kv)
            mixed = [(gpus, 1000), (1, 131_072)]
            held = memory_fit(gpu, model, *mixed[0], gpus, precision, "ep",
                              more=mixed[1:]).kv_per_gpu_bytes
            total = sum(count * model.kv_bytes(context, kv) for count, context in mixed)
            if _breaks(held, max(longest, total / gpus)):
                failures.append(f"{_name(gpu, model, gpus, 'ep', precision)} {mixed}: "
                                f"{held / 1e9:.4g} GB, the longest alone is "
                                f"{longest / 1e9:.4g} GB")
    assert not failures, _listing(failures, "no sequence's KV is split across data-parallel "
                                            "attention ranks")


def test_a_token_under_data_parallel_attention_takes_its_full_kv_on_its_gpu() -> None:
    """The KV room a serving sim works with (sims.serving.kv_space) follows the same law:
    under "ep" one more token of context adds the model's full per-token KV on its GPU, and
    a sequence's sliding windows their full bytes; neither is divided by the group."""
    failures = []
    for gpu, model, gpus in _ep_groups():
        for kv in PRECISIONS:
            precision = precision_for(gpu, model, kv=kv)
            space = kv_space(gpu, model, gpus, precision, "ep")
            per_token, windows = model.kv_bytes_per_token(kv), model.kv_constant_bytes(kv)
            if (space.bytes_per_token != pytest.approx(per_token, rel=ROUNDING)
                    or space.window_bytes != pytest.approx(windows, rel=1e-6, abs=1.0)):
                failures.append(f"{_name(gpu, model, gpus, 'ep', precision)}: "
                                f"{space.bytes_per_token:.6g} B per token and "
                                f"{space.window_bytes:.6g} B of windows, the model's are "
                                f"{per_token:.6g} and {windows:.6g}")
    assert not failures, _listing(failures, "a token's KV is whole on its GPU under ep")


def test_the_calculator_holds_one_long_sequence_whole_on_one_gpu(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 38's impossible result: `python -m sims calculator --gpu h200 --model
    qwen3-235b-a22b --tp 8 --batch 1 --context 131072 --layout ep` once reported 3.2 GB of
    KV per GPU, 1/8 of the sequence; with attention data-parallel one GPU holds all of it
    (about 25 GB at BF16: 94 layers x 4 KV heads x 128 x K and V x 2 bytes a token)."""
    assert main(["calculator", "--gpu", "h200", "--model", "qwen3-235b-a22b", "--tp", "8",
                 "--batch", "1", "--context", "131072", "--layout", "ep"]) == 0
    memory = json.loads(capsys.readouterr().out)["summary"]["memory"]
    found = re.search(r"KV cache ([0-9.]+) GB", memory)
    assert found, f"the calculator's memory figure names no KV cache: {memory!r}"
    whole = MODELS["qwen3-235b-a22b"].kv_bytes(131_072 + 1, "bf16") / 1e9  # after the step
    assert float(found.group(1)) == pytest.approx(whole, abs=0.05), (
        f"the calculator holds {found.group(1)} GB of KV on the busiest GPU; the one "
        f"sequence's KV is {whole:.1f} GB: {memory}")
    assert whole == pytest.approx(25.2, abs=0.1)


# -- 4. Decode is never faster than reading its weights at peak bandwidth ----------------


def _kv_read(model: Model, context: int, kv: str) -> float:
    """Bytes of cache one sequence's decode must read after `context` tokens, layer by
    layer as its kind attends: every cached token of a full layer, a sliding layer's window,
    a linear layer's state; a sparse layer its indexer's key for every token and the top-k
    entries it picks; a compressed layer its window and its pooled entries (the top-k of them
    where an indexer picks). A chunked layer counts nothing: a query at a chunk's start reads
    one token, and the physics prices the mean over the chunk."""
    index = model.index_head_dim * bytes_per_value(INDEXER_PRECISION)
    total = 0.0
    for kind, count in model.groups:
        entry = model.kv_values(kind) * bytes_per_value(kv)
        held = min(context, kind.window) if kind.window else context
        if kind.attention == LINEAR:
            read = model.linear_state_bytes
        elif kind.attention == CHUNKED:
            read = 0.0
        elif kind.attention == SPARSE:
            read = context * index + min(context, kind.topk) * entry
        elif kind.attention == COMPRESSED:
            pooled = context / kind.ratio if kind.ratio else 0.0
            picked = min(pooled, kind.topk) if kind.topk else pooled
            read = held * entry + picked * entry + (pooled * index if kind.topk else 0.0)
        else:
            read = held * entry
        total += count * read
    return total


def _decode_reads(gpu: Gpu, model: Model, batch: int, context: int, gpus: int, layout: str,
                  precision: Precision) -> tuple[float, float]:
    """(weight bytes, KV bytes) that some one GPU of the group must read from HBM in one
    decode step of `batch` sequences after `context` tokens: a lower bound, not an estimate.

    Weights are read at least once a step: every model here is gigabytes and a GPU's caches
    are at most hundreds of megabytes, so nothing stays on chip between steps. Starting from
    what each GPU holds (memory_fit's weights_per_gpu_bytes), two things need not be read:

    - the embedding table, of which the step only gathers one row per sequence (unless it is
      tied to the output head, which reads all of it);
    - routed experts no token is sent to. Each token is sent to experts_per_token (k)
      distinct experts of each MoE layer, so a step touches at least k of them, however the
      router spreads its tokens (a batch of one exactly k). We use k for every batch: the
      model's expected E(1 - (1 - k/E)^T) is an assumption about routing, k is certain.

    Under "tp" each GPU holds 1/n of every matrix, so it reads 1/n of the dense weights and
    of each of the k touched experts. Under "ep" each GPU holds whole experts, E/n of them
    (ceil(E / n) on the busiest where n does not divide E): one token's k experts put
    ceil(k / n) on some GPU; and each GPU that serves a sequence
    reads the dense weights (attention, dense MLP, shared experts, router, head) whole. With
    a sequence on every GPU (batch >= n) the busiest expert GPU reads both; with fewer, the
    larger of the two binds.

    KV: what each layer's attention must read (_kv_read: every cached token, a sliding
    layer's window, a sparse layer's picks and its indexer's keys). Under
    "tp" the batch's KV split evenly is the least a GPU reads (a latent cache held whole
    by every GPU reads more); under "ep" the busiest GPU reads its ceil(batch / n) sequences'
    KV whole, on the GPU that serves them (with batch < n, the dense weights' GPU)."""
    fit = memory_fit(gpu, model, batch, context, gpus, precision, layout)
    table = (0.0 if model.tied_embeddings or not model.has_embedding
             else model.vocab * model.hidden * bytes_per_value(EMBEDDING_PRECISION))
    experts = model.expert_weight_bytes(precision)
    expert_layer = model.moe_layers * model.expert_params * bytes_per_value(precision.experts)
    one_sequence = _kv_read(model, context, precision.kv)
    k = model.experts_per_token
    if layout == "tp":
        weights = fit.weights_per_gpu_bytes - (table + experts - k * expert_layer) / gpus
        return weights, batch * one_sequence / gpus
    dense = (fit.weights_per_gpu_bytes - experts * experts_per_gpu(model.experts, gpus)
             / model.experts - table)
    touched = math.ceil(k / gpus) * expert_layer
    kv = math.ceil(batch / gpus) * one_sequence
    if batch >= gpus:
        return dense + touched, kv
    return (dense, kv) if dense + kv >= touched else (touched, 0.0)


@pytest.mark.parametrize("gpu_key", SWEPT_GPU_KEYS)  # one of each class (_one_per_class)
def test_decode_is_never_faster_than_reading_its_weights_at_peak_bandwidth(
    gpu_key: str,
) -> None:
    """Decode is memory-bound at heart: every weight a token is multiplied by, and every
    cached K and V it attends to, has to come in from HBM, which moves at most its peak
    bandwidth. So a decode step takes at least the bytes some GPU must read (_decode_reads:
    the dense weights, the experts the step must touch, the KV it attends to) over that
    bandwidth, whatever the batch, context, format or layout."""
    gpu = GPUS[gpu_key]
    failures = []
    for model, gpus, layout, precision in _deployments(gpu):
        for batch in DECODE_BATCHES:
            for context in DECODE_CONTEXTS:
                weights, kv = _decode_reads(gpu, model, batch, context, gpus, layout, precision)
                bound = (weights + kv) / gpu.hbm_bytes_per_s
                ours = decode_step(gpu, model, batch, context, gpus, precision, layout).time_s
                if _breaks(ours, bound):
                    failures.append(
                        f"{_name(gpu, model, gpus, layout, precision)} batch {batch} context "
                        f"{context}: {ours * 1e3:.6g} ms < {bound * 1e3:.6g} ms to read "
                        f"{weights / 1e9:.4g} GB of weights and {kv / 1e9:.4g} GB of KV at "
                        f"{gpu.hbm_bytes_per_s / 1e12:.4g} TB/s")
    assert not failures, _listing(failures, "decode is never faster than reading the weights "
                                            "at peak bandwidth")


def test_at_batch_one_the_bound_is_the_active_parameters() -> None:
    """The bound above is the one that matters, not a looser one: for one sequence on one
    GPU in BF16 it is exactly the parameters a token is multiplied by (the model cards'
    active count, which tests/sims/test_physics.py holds to the publishers') and the final
    norm, far below everything a mixture of experts holds; its only KV is a linear layer's
    state, which a sequence holds from its first token."""
    gpu = GPUS["b200"]
    for key, model in MODELS.items():
        precision = precision_for(gpu, model, "bf16")
        weights, kv = _decode_reads(gpu, model, 1, 0, 1, "tp", precision)
        states = sum(count * model.linear_state_bytes for kind, count in model.groups
                     if kind.attention == LINEAR)
        assert (weights, kv) == pytest.approx(((model.params_active + model.hidden) * 2,
                                               states)), key
        if model.experts:
            assert weights < 0.5 * model.weight_bytes(precision), key
