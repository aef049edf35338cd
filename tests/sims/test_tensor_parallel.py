"""The tensor-parallel sim: all-reduce counts, their near-flat cost, and memory fit."""

from __future__ import annotations

import pytest

from sims.physics import MODELS
from sims.tensor_parallel import simulate

SPLIT = ("2", "4", "8")


@pytest.mark.parametrize("tp", SPLIT)
def test_two_allreduces_per_layer(tp: str) -> None:
    summary = simulate(tp=tp, model="llama-3-70b")["summary"]
    assert MODELS["llama-3-70b"].layers == 80
    assert summary["allreduces_per_token"] == 160


def test_one_gpu_has_nothing_to_agree_on() -> None:
    summary = simulate(tp="1", model="llama-3-8b")["summary"]
    assert summary["allreduces_per_token"] == 0
    assert summary["allreduce_time_s"] == 0.0
    assert summary["step_time_s"] == summary["matmul_time_s"]


@pytest.mark.parametrize("tp", SPLIT)
def test_allreduce_cost_is_nearly_flat_in_batch(tp: str) -> None:
    """256 times the tokens costs well under three times the all-reduce time."""
    small = simulate(tp=tp, batch_size=1)["summary"]
    large = simulate(tp=tp, batch_size=256)["summary"]
    ratio = large["allreduce_time_s"] / small["allreduce_time_s"]
    assert 1.0 < ratio < 3.0
    # Per token the all-reduces get nearly 100 times cheaper.
    assert ratio / 256 < 0.012


def test_fixed_latency_dominates_at_decode_sizes() -> None:
    assert simulate(batch_size=1)["summary"]["allreduce_fixed_fraction"] > 0.95
    assert simulate(batch_size=16)["summary"]["allreduce_fixed_fraction"] > 0.8


def test_without_fixed_latency_only_data_is_left() -> None:
    summary = simulate(allreduce_latency_us=0)["summary"]
    assert summary["allreduce_fixed_fraction"] == 0.0
    assert 0.0 < summary["allreduce_fraction"] < 0.05


@pytest.mark.parametrize("gpu", ["h100", "a100"])
def test_70b_refuses_to_fit_on_one_80gb_gpu(gpu: str) -> None:
    summary = simulate(tp="1", gpu=gpu, model="llama-3-70b", batch_size=1)["summary"]
    assert summary["fits"] is False
    assert summary["memory"].startswith("does not fit")
    assert summary["weights_per_gpu_gb"] > 80
    # Still priced, so the reader sees what the step would cost.
    assert summary["step_time_s"] > 0


def test_70b_fits_on_eight() -> None:
    summary = simulate(tp="8", model="llama-3-70b")["summary"]
    assert summary["fits"] is True
    assert summary["memory"].startswith("fits")


def test_more_gpus_shorter_step_larger_allreduce_share() -> None:
    runs = [simulate(tp=tp)["summary"] for tp in ("1", "2", "4", "8")]
    steps = [run["step_time_s"] for run in runs]
    shares = [run["allreduce_fraction"] for run in runs]
    assert steps == sorted(steps, reverse=True)
    assert shares == sorted(shares)


def test_step_is_shard_work_plus_allreduce() -> None:
    summary = simulate()["summary"]
    total = summary["matmul_time_s"] + summary["allreduce_time_s"]
    assert summary["step_time_s"] == pytest.approx(total, rel=1e-5)


def test_charts_cover_every_degree_and_both_batches() -> None:
    split, compared = simulate(tp="1")["charts"]
    groups = {row["group"] for row in split["data"]["values"]}
    assert groups == {"1 GPU (no fit)", "2 GPUs (no fit)", "4 GPUs", "8 GPUs"}
    assert {row["batch"] for row in compared["data"]["values"]} == {1, 256}
