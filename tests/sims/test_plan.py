"""The planner (issue 41): what it recommends meets the target under `serve`, nothing
cheaper that it searched does, every set-up it rules out is ruled out for a true reason,
and its command line refuses bad input by name."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from sims import __main__ as cli
from sims import plan as plan_sim
from sims.physics import GPUS, MODELS, precision_for
from sims.planning import space
from sims.planning.command import plan_json
from sims.planning.estimate import Target
from sims.planning.verify import SEED, requests_for
from sims.serving.deploy import serve_json
from sims.serving.engines import ENGINES
from sims.serving.kv_space import kv_space

DEFAULT = {"model": "llama-3.1-70b", "isl": "1000", "osl": "250", "rate": "10",
           "ttft_s": "1", "tpot_s": "0.05"}
USERS = {"model": "llama-3.1-8b", "isl": "2000", "osl": "300", "concurrency": "96",
         "ttft_s": "0.8", "tpot_s": "0.03", "percentile": "99",
         "gpu": "h100,h200,a100,l40s", "price": "l40s=1.2"}


@pytest.fixture(scope="module")
def by_rate() -> dict[str, Any]:
    return plan_json(DEFAULT)


REASONING = {"model": "qwen3-30b-a3b", "workload": "reasoning", "rate": "4", "ttft_s": "2",
             "tpot_s": "0.03", "gpu": "mi300x,h100,b200"}
LONG = {"model": "llama-3.1-70b", "workload": "long-context-retrieval", "rate": "0.5",
        "ttft_s": "3", "tpot_s": "0.05"}


@pytest.fixture(scope="module")
def by_users() -> dict[str, Any]:
    return plan_json(USERS)


@pytest.fixture(scope="module")
def long_context() -> dict[str, Any]:
    return plan_json(LONG)


@pytest.fixture(scope="module")
def reasoning() -> dict[str, Any]:
    return plan_json(REASONING)


def _label(result: dict[str, Any]) -> str:
    return f"p{result['inputs']['percentile']:g}"


def _serve_label(result: dict[str, Any]) -> str:
    return {90.0: "p90", 99.0: "p99", 50.0: "p50"}[result["inputs"]["percentile"]]


def _meets(served: dict[str, Any], result: dict[str, Any]) -> bool:
    key = _serve_label(result)
    return (served["ttft_s"][key] <= result["inputs"]["ttft_s"]
            and served["tpot_s"][key] <= result["inputs"]["tpot_s"])


def _serve_at(setup: dict[str, Any], result: dict[str, Any], replicas: int
              ) -> dict[str, Any]:
    """serve_json for a set-up at its share of the whole load over `replicas` replicas."""
    inputs = result["inputs"]
    given = {"model": inputs["model"], "gpu": setup["gpu"], "gpus": setup["gpus_per_replica"],
             "parallel": setup["parallel"], "weights": setup["weights"], "kv": setup["kv"],
             "engine": inputs["engine"], "isl": inputs["isl"], "osl": inputs["osl"],
             "length_spread": inputs["length_spread"], "seed": SEED,
             "max_batch": setup["max_batch"], "token_budget": setup["token_budget"]}
    target = Target(inputs["ttft_s"], inputs["tpot_s"], inputs["percentile"] / 100)
    if "concurrency" in inputs:
        users = math.ceil(inputs["concurrency"] / replicas)
        given |= {"concurrency": users,
                  "requests": requests_for(users, 0.0, target, inputs["osl"])}
    else:
        rate = inputs["rate"] / replicas
        given |= {"rate": rate, "requests": requests_for(0, rate, target, inputs["osl"])}
    return serve_json(given)


def test_the_default_search_weighs_at_least_a_thousand_setups(by_rate: dict) -> None:
    assert by_rate["searched"] >= 1000
    assert by_rate["searched"] == len(by_rate["ruled_out"]) + by_rate["candidates"]


@pytest.mark.parametrize("name", ["by_rate", "by_users", "long_context", "reasoning"])
def test_every_recommended_setup_meets_the_target_under_serve(name: str,
                                                              request: Any) -> None:
    result = request.getfixturevalue(name)
    assert result["setups"], "the plan recommends nothing"
    for setup in result["setups"]:
        served = serve_json(setup["serve"])
        assert _meets(served, result), (setup, served["ttft_s"], served["tpot_s"])
        # The figures reported are serve's own.
        key = _serve_label(result)
        assert setup["ttft_s"][key] == pytest.approx(served["ttft_s"][key], rel=1e-5)
        assert setup["tpot_s"][key] == pytest.approx(served["tpot_s"][key], rel=1e-5)


@pytest.mark.parametrize("name", ["by_rate", "by_users", "long_context"])
def test_setups_come_cheapest_first_with_their_costs_worked_out(name: str,
                                                                request: Any) -> None:
    result = request.getfixturevalue(name)
    costs = [s["cost_per_hour"] for s in result["setups"]]
    assert costs == sorted(costs)
    for setup in result["setups"]:
        assert setup["gpus"] == setup["replicas"] * setup["gpus_per_replica"]
        assert setup["cost_per_hour"] == pytest.approx(setup["gpus"]
                                                       * setup["price_per_gpu_hour"])
        for key in ("ttft_s", "tpot_s"):
            assert {"p50", "p90", "p99"} <= set(setup[key])
        assert setup["binding_limit"]
        assert setup["cost_per_million_output_tokens"] > 0


def _cheaper_samples(result: dict[str, Any], count: int) -> list[tuple[dict, int]]:
    """Aggregated set-ups the plan did not rule out, each with the most replicas that still
    cost less than the cheapest recommended one (a fixed-seed sample)."""
    best = result["setups"][0]["cost_per_hour"]
    inputs = result["inputs"]
    ruled = {tuple(sorted((k, v) for k, v in r.items() if k != "reason"))
             for r in result["ruled_out"]}
    prices = {key: inputs["prices"].get(key, gpu.price_per_gpu_hour)
              for key, gpu in GPUS.items()}
    found = []
    chosen = [GPUS[key] for key in inputs["gpu"]]
    for setup in space.setups(chosen, MODELS[inputs["model"]], ENGINES[inputs["engine"]]):
        fields = setup.describe()
        if setup.disaggregated or tuple(sorted(fields.items())) in ruled:
            continue
        per_replica = setup.gpus * prices[setup.gpu]
        replicas = math.ceil(best / per_replica - 1e-9) - 1
        if replicas >= 1:  # the recommended set-ups' own, with fewer replicas, too
            found.append((fields, replicas))
    random.Random(0).shuffle(found)
    best_own = [(fields, replicas) for fields, replicas in found
                if fields == {k: result["setups"][0][k] for k in fields}]
    return best_own + [item for item in found if item not in best_own][:count]


@pytest.mark.parametrize("name", ["by_rate", "by_users", "long_context", "reasoning"])
def test_no_cheaper_setup_of_the_search_meets_the_target(name: str, request: Any) -> None:
    result = request.getfixturevalue(name)
    samples = _cheaper_samples(result, 12)
    if name == "by_rate":
        assert samples, "the default plan leaves nothing cheaper to check"
    for fields, replicas in samples:
        try:
            served = _serve_at(fields, result, replicas)
        except ValueError:
            continue  # serve refuses it: a longer run's request does not fit
        assert not _meets(served, result), (fields, replicas, served["ttft_s"],
                                            served["tpot_s"])


def _by_reason(result: dict[str, Any], start: str, count: int = 3) -> list[dict[str, Any]]:
    found = [r for r in result["ruled_out"] if r["reason"].startswith(start)]
    random.Random(1).shuffle(found)
    return found[:count]


@pytest.mark.parametrize("name", ["by_rate", "by_users", "long_context"])
def test_each_ruled_out_reason_is_true(name: str, request: Any) -> None:
    result = request.getfixturevalue(name)
    inputs = result["inputs"]
    model = MODELS[inputs["model"]]
    seen = set()
    for ruled in _by_reason(result, "the weights do not fit"):
        gpu = GPUS[ruled["gpu"]]
        precision = precision_for(gpu, model, ruled["weights"], None, ruled["kv"])
        assert not kv_space(gpu, model, ruled["gpus_per_replica"], precision,
                            ruled["parallel"]).fits
        seen.add("weights")
    for ruled in _by_reason(result, "the KV cache holds fewer"):
        with pytest.raises(ValueError, match="^isl: "):
            _serve_at(ruled, {**result, "inputs": {**inputs, "concurrency": 1}}, 1)
        seen.add("kv")
    for ruled in _by_reason(result, "the target is out of reach at any load"):
        alone = _serve_at(ruled, {**result, "inputs": {**inputs, "concurrency": 1}}, 1)
        assert not _meets(alone, result), (ruled, alone["ttft_s"], alone["tpot_s"])
        seen.add("alone")
    for ruled in _by_reason(result, "no price"):
        assert GPUS[ruled["gpu"]].price_per_gpu_hour is None
        assert ruled["gpu"] not in inputs["prices"]
        seen.add("price")
    for ruled in _by_reason(result, "disaggregation needs a network"):
        assert GPUS[ruled["gpu"]].scale_out_bytes_per_s is None
        seen.add("network")
    assert seen, "no reason was checked"
    if name == "long_context":
        assert {"weights", "kv", "alone", "price", "network"} <= seen


def test_a_target_no_setup_can_meet_gives_no_setups_and_says_why() -> None:
    result = plan_json({**DEFAULT, "ttft_s": "0.01"})
    assert result["setups"] == []
    assert len(result["ruled_out"]) == result["searched"]
    assert all(r["reason"] for r in result["ruled_out"])
    summary = plan_sim.simulate(ttft_s=0.01)["summary"]
    assert summary["met"] is False and summary["setups_ruled_out"] == summary["setups_searched"]


@pytest.mark.parametrize(("args", "name"), [
    (["--rate", "0"], "rate"),
    (["--concurrency", "0"], "concurrency"),
    (["--price", "h100=0"], "price"),
    (["--price", "h100=free"], "price"),
    (["--gpu", "h100,tpu9"], "gpu"),
    (["--model", "gpt-9"], "model"),
    (["--ttft_s", "-1"], "ttft_s"),
    (["--rate", "2", "--concurrency", "4"], "rate"),
])
def test_a_bad_input_exits_2_naming_it(args: list[str], name: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plan", *args]) == 2
    assert capsys.readouterr().err.startswith(f"error: {name}: ")


def test_the_command_prints_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plan", "--model", "llama-3.1-8b", "--workload", "chat", "--rate", "5",
                     "--ttft_s", "1", "--tpot_s", "0.05", "--gpu", "h100"]) == 0
    import json
    printed = json.loads(capsys.readouterr().out)
    assert printed["inputs"]["isl"] == 1000 and printed["inputs"]["osl"] == 250
    setup = printed["setups"][0]
    for key in ("gpu", "gpus_per_replica", "parallel", "weights", "kv", "disaggregated",
                "replicas", "gpus", "cost_per_hour", "cost_per_million_output_tokens",
                "binding_limit", "ttft_s", "tpot_s"):
        assert key in setup
    assert all("reason" in r for r in printed["ruled_out"])


def test_an_explicit_length_overrides_the_workload_preset() -> None:
    result = plan_json({**DEFAULT, "workload": "summarization", "isl": "3000", "gpu": "b200"})
    assert result["inputs"]["isl"] == 3000 and result["inputs"]["osl"] == 250
    result = plan_json({"workload": "summarization", "rate": "2", "gpu": "b200"})
    assert (result["inputs"]["isl"], result["inputs"]["osl"]) == (8000, 500)


def test_a_gpu_without_a_cited_price_is_ruled_out_until_given_one() -> None:
    assert GPUS["l40s"].price_per_gpu_hour is None
    result = plan_json({**DEFAULT, "model": "llama-3.1-8b", "gpu": "l40s"})
    assert result["setups"] == [] and all(r["reason"].startswith("no price")
                                          for r in result["ruled_out"])
    priced = plan_json({**DEFAULT, "model": "llama-3.1-8b", "gpu": "l40s",
                        "price": "l40s=1.5"})
    assert priced["setups"] and priced["setups"][0]["price_per_gpu_hour"] == 1.5


def test_every_priced_gpu_cites_its_price() -> None:
    for gpu in GPUS.values():
        assert gpu.price_note
        if gpu.price_per_gpu_hour is not None:
            assert "read 20" in gpu.price_note and gpu.price_per_gpu_hour > 0


def test_scaling_the_model_scales_what_it_reports() -> None:
    plain = plan_sim.simulate(gpu="h100", rate=5.0)["summary"]
    slower = plan_sim.simulate(gpu="h100", rate=5.0, tpot_scale=1.5)["summary"]
    assert slower["best_tpot_s"] <= 0.05
    assert slower["best_cost_per_hour"] >= plain["best_cost_per_hour"]


def test_the_search_reports_its_steps_to_a_listener() -> None:
    """sims.kit.progress: the estimates first, then each run of serve, never past the total
    it gives; nothing is reported once nobody listens."""
    from sims.kit import progress

    reports: list[tuple[int, int, str]] = []
    progress.listen(lambda done, total, text: reports.append((done, total, text)))
    try:
        result = plan_sim.simulate()
    finally:
        progress.listen(None)
    assert reports[0][0] == 0 and reports[0][2].startswith("Ruling out and estimating")
    runs = [done for done, _, text in reports if text.startswith("Running serve")]
    assert runs == list(range(1, len(runs) + 1))
    assert len(runs) == result["serve_runs"]
    assert all(done <= total for done, total, _ in reports)
    plan_sim.simulate(rate=11)
    assert len(reports) == 1 + len(runs)
