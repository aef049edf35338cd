"""`python -m sims`: list the sims, run one with inputs, exit 2 on a bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import sims
from sims.__main__ import main


def test_list_names_every_sim_with_its_title(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sims.sim_names()
    assert any("A batch is only as fast as its slowest member" in line for line in lines)


def test_a_run_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batching", "--batch_size", "8"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    assert json.loads(printed) == sims.load("batching").simulate(batch_size=8)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["batching", "--batch_size", "0"], "batch_size: expected an integer from 1 to 32 slots"),
        (["batching", "--batch_size", "eight"], "batch_size: expected an integer"),
        (["nosuchsim"], "no sim named 'nosuchsim'"),
        (["contract"], "no sim named 'contract'"),
    ],
)
def test_a_bad_input_exits_2_with_the_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_an_unknown_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["batching", "--batchsize", "8"])
    assert caught.value.code == 2
    assert "--batchsize" in capsys.readouterr().err


def test_no_arguments_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_the_module_entry_point_works_as_a_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sims", "batching", "--batch_size", "0"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2
    assert "batch_size: expected an integer from 1 to 32 slots, got 0" in done.stderr


# --- The physics calculator --------------------------------------------------------------

def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1
    return json.loads(printed)


def test_catalogue_prints_every_gpu_and_model_with_its_figures(
    capsys: pytest.CaptureFixture[str]
) -> None:
    from sims.physics import GPUS, MODELS

    printed = _json(["--catalogue"], capsys)
    assert set(printed) == {"gpus", "models"}
    assert set(printed["gpus"]) == set(GPUS) and set(printed["models"]) == set(MODELS)
    for key, gpu in printed["gpus"].items():
        assert set(gpu["dense_flops"]) <= {"bf16", "fp8", "fp4"}, key
        for name in ("hbm_bytes", "hbm_bytes_per_s", "interconnect_bytes_per_s",
                     "peak_ridge_flops_per_byte"):
            assert gpu[name] > 0, (key, name)
        # Its kernel profile: the ridge at the shares of peak its BF16 GEMMs reach, and each
        # all-reduce implementation's latencies by algorithm and number of GPUs (a reduction
        # in the switch only where there is a switch).
        profile = GPUS[key].kernels
        assert (gpu["kernel_profile"], gpu["topology"]) == (profile.key, GPUS[key].topology)
        fit = profile.gemm["bf16"]
        assert gpu["effective_ridge_flops_per_byte"] == pytest.approx(
            gpu["peak_ridge_flops_per_byte"] * fit.compute_efficiency / fit.memory_efficiency,
            rel=1e-5), key
        assert gpu["allreduce_latency_s"] == {
            name: {algorithm.traffic: pytest.approx({str(n): seconds for n, seconds
                                                     in algorithm.latency_s.items()}, rel=1e-5)
                   for algorithm in implementation.algorithms
                   if algorithm.traffic != "in_switch" or GPUS[key].topology == "switch"}
            for name, implementation in profile.all_reduce.items()}, key
    h100, a100 = printed["gpus"]["h100"], printed["gpus"]["a100"]
    assert h100["dense_flops"] == {"bf16": 989e12, "fp8": 1979e12}  # no FP4: absent
    assert "fp8" not in a100["dense_flops"]
    assert h100["hbm_bytes"] == pytest.approx(80 * 2**30, rel=1e-5)
    assert h100["interconnect_bytes_per_s"] == 450e9
    assert h100["peak_ridge_flops_per_byte"] == pytest.approx(989 / 3.35, rel=1e-5)
    assert printed["gpus"]["mi300x"]["topology"] == "mesh" and h100["topology"] == "switch"
    # The MI300X borrows Hopper's NCCL fit, in-switch algorithm and all, but has no switch.
    mesh_nccl = GPUS["mi300x"].kernels.all_reduce["nccl"].algorithms
    assert "in_switch" in {algorithm.traffic for algorithm in mesh_nccl}
    assert set(printed["gpus"]["mi300x"]["allreduce_latency_s"]["nccl"]) == {
        algorithm.traffic for algorithm in mesh_nccl} - {"in_switch"}
    assert "in_switch" in h100["allreduce_latency_s"]["nccl"]
    # The A100 has no measured custom all-reduce: NCCL alone.
    assert set(a100["allreduce_latency_s"]) == {"nccl"}
    for key, model in printed["models"].items():
        assert model["params_total"] >= model["params_active"] > 0, key
        assert set(model["kv_bytes_per_token"]) == {"bf16", "fp8", "fp4"}, key
    assert printed["models"]["llama-3.1-8b"]["kv_bytes_per_token"]["bf16"] == 131072
    assert printed["models"]["deepseek-v3"]["kv_bytes_per_token"]["bf16"] == 61 * 576 * 2


def test_step_prints_the_steps_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from sims.physics import GPUS, MODELS, decode_step, memory_fit, prefill

    printed = _json(["step", "--gpu", "h100", "--model", "llama-3.1-70b", "--tp", "8",
                     "--batch", "16", "--context", "2048", "--phase", "decode"], capsys)
    assert list(printed) == ["time_s", "compute_s", "memory_s", "collective_s", "flops",
                             "bytes", "fits"]
    cost = decode_step(GPUS["h100"], MODELS["llama-3.1-70b"], 16, 2048, 8)
    assert printed["time_s"] == pytest.approx(cost.time_s, rel=1e-5)
    assert printed["collective_s"] == pytest.approx(cost.collective_s, rel=1e-5)
    assert printed["fits"] is memory_fit(GPUS["h100"], MODELS["llama-3.1-70b"], 16, 2049,
                                         8).fits is True
    fill = _json(["step", "--gpu", "b200", "--model", "llama-3.1-8b", "--tp", "1", "--batch",
                  "2", "--context", "0", "--phase", "prefill", "--prompt_tokens", "4096",
                  "--weights", "fp4", "--kv", "fp8"], capsys)
    from sims.physics import precision_for

    formats = precision_for(GPUS["b200"], MODELS["llama-3.1-8b"], "fp4", kv="fp8")
    expected = prefill(GPUS["b200"], MODELS["llama-3.1-8b"], 4096, batch=2, precision=formats)
    assert fill["flops"] == pytest.approx(expected.flops, rel=1e-5)
    assert fill["time_s"] == pytest.approx(expected.time_s, rel=1e-5)


def test_allreduce_prints_its_time(capsys: pytest.CaptureFixture[str]) -> None:
    from sims.physics import GPUS, allreduce_time

    printed = _json(["allreduce", "--gpu", "h100", "--tp", "4", "--bytes", "1048576"], capsys)
    assert printed == {"time_s": pytest.approx(allreduce_time(GPUS["h100"], 1048576, 4),
                                               rel=1e-5)}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["step", "--gpu", "h300"], "gpu: expected one of"),
        (["step", "--tp", "3"], "tp: expected one of 1, 2, 4, 8"),
        (["step", "--gpu", "l40s", "--tp", "2"], "tp: expected 1 to 1 GPUs"),
        (["step", "--batch", "0"], "batch: expected an integer from 1 to 1024"),
        (["step", "--phase", "both"], "phase: expected one of decode, prefill"),
        (["step", "--gpu", "a100", "--activations", "fp8"],
         "activations: expected a format the NVIDIA A100 SXM 80 GB computes in (BF16)"),
        (["step", "--layout", "ep"], "layout: expected tp for Llama 3.1 8B, got ep"),
        (["allreduce", "--gpu", "l40s", "--tp", "2"], "tp: expected 1 to 1 GPUs"),
        (["allreduce", "--bytes", "-1"], "bytes: expected"),
    ],
)
def test_a_bad_calculator_argument_exits_2_naming_it(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err
