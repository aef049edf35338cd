"""A pasted config.json (Model "custom") in every sim: the catalogue's own models' real
configs give the catalogue's results, bad pastes are refused naming the field, one paste
never answers for another, and `--model-config FILE` does the same on the command line.

The configs are the real Hugging Face files of tests/pipeline/fixtures/configs (SOURCES.md),
named by catalogue key. A result is compared with its model's name and key taken out (a
pasted model is "Your model", "custom"): every number, and every other word, must match.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import sims
from sims.__main__ import main
from sims.kit import runner
from sims.kit.contract import InputError
from sims.physics import MODELS, Model, catalogue_data
from sims.physics.model_choice import CUSTOM, INPUT, NAME, compact, model_for, read
from sims.serving import deploy

CONFIGS = Path(__file__).parents[1] / "pipeline" / "fixtures" / "configs"
# The catalogue's models whose real config.json is a fixture (the others there are kept for
# the physics' own tests: tests/sims/test_model_kinds.py).
SLUGS = sorted(path.stem for path in CONFIGS.glob("*.json") if path.stem in MODELS)
SIMS = [name for name in sims.sim_names()
        if INPUT in {spec.name for spec in sims.load(name).INPUTS}]


def _config(slug: str) -> str:
    return (CONFIGS / f"{slug}.json").read_text(encoding="utf-8")


def _outcome(call: Any, name: str, key: str) -> str:
    """The result (or refusal) as JSON text with the model's name and key replaced."""
    try:
        text = json.dumps(call())
    except ValueError as error:
        text = f"refused: {error}"
    text = re.sub(rf'"model": "{re.escape(key)}"', '"model": "<key>"', text)
    return text.replace(name, "<model>")  # after the key: a model may be named by its key


def test_every_sim_with_a_model_offers_custom_and_its_text() -> None:
    # Every explainer with a model, the calculator and the planner (spec_sampling has none).
    assert len(SIMS) >= 15 and "plan" in SIMS and "calculator" in SIMS
    assert not {"model", INPUT} & {spec.name for spec in sims.load("spec_sampling").INPUTS}
    for name in SIMS:
        specs = {spec.name: spec for spec in sims.load(name).INPUTS}
        assert CUSTOM in specs["model"].choices, name
        assert specs[INPUT].shown_when == f"model={CUSTOM}", name
        names = list(specs)
        assert names.index(INPUT) == names.index("model") + 1, name


@pytest.mark.parametrize("name", SIMS)
def test_a_catalogue_models_own_config_gives_the_catalogue_models_results(name: str) -> None:
    """Every fixture in turn, in one process: a cache keyed by "custom" rather than by the
    pasted model would answer the second paste with the first's results, and fail here."""
    sim = sims.load(name)
    offered = next(spec for spec in sim.INPUTS if spec.name == "model").choices
    compared = 0
    for slug in SLUGS:
        if slug not in offered:
            continue
        ours = _outcome(lambda slug=slug: sim.simulate(model=slug), MODELS[slug].name, slug)
        pasted = _outcome(lambda slug=slug: sim.simulate(model=CUSTOM,
                                                         model_config=_config(slug)),
                          NAME, CUSTOM)
        assert pasted == ours, f"{name}, {slug}"
        compared += 1
    assert compared


def test_serve_takes_a_pasted_config_as_the_catalogue_model() -> None:
    for slug in ("llama-3.1-8b", "qwen3-30b-a3b"):
        ours = _outcome(lambda slug=slug: deploy.serve_json({"model": slug, "requests": 64}),
                        MODELS[slug].name, slug)
        pasted = _outcome(lambda slug=slug: deploy.serve_json(
            {"model": CUSTOM, INPUT: _config(slug), "requests": 64}), NAME, CUSTOM)
        assert pasted.replace(f', "{INPUT}": {json.dumps(read(_config(slug))[0])}', "") == ours


def _shape(model: Model) -> dict[str, object]:
    """Every field of a Model but its key and name: what makes two of them the same model."""
    return {field: getattr(model, field) for field in model.__dataclass_fields__
            if field not in ("key", "name")}


def test_every_catalogue_model_has_its_real_config_or_pastes_its_own_fields() -> None:
    """Each catalogue model's real config.json is a fixture, but one no vendored copy carries
    (Llama 3.2 1B); that one is pasted as its catalogue file's config fields, which are its
    config.json's own, and must give the same model."""
    without = sorted(set(MODELS) - set(SLUGS))
    assert without == ["llama-3.2-1b"]
    for slug in without:
        pasted = model_for(CUSTOM, json.dumps(catalogue_data.MODELS[slug]["config"]))
        assert _shape(pasted) == _shape(MODELS[slug])


@pytest.mark.parametrize("slug", SLUGS)
def test_the_compact_text_the_url_carries_is_the_same_model(slug: str) -> None:
    value, note = read(_config(slug))
    assert len(value) < len(_config(slug)) and "\n" not in value
    ours, pasted = MODELS[slug], model_for(CUSTOM, value)
    assert _shape(pasted) == _shape(ours)
    assert note.startswith(f"{NAME}: ") and f"{ours.layers} layers" in note
    assert compact(value) == value  # read again, it is itself


def test_one_paste_gives_one_model_object_and_another_paste_another() -> None:
    first = model_for(CUSTOM, _config("llama-3.1-8b"))
    assert model_for(CUSTOM, _config("llama-3.1-8b")) is first
    assert model_for(CUSTOM, _config("llama-3.1-70b")) is not first


BAD = {
    "empty": ("   ", "empty"),
    "not JSON": ('{"hidden_size": 4096,', "not JSON"),
    "missing hidden_size": (json.dumps({"num_hidden_layers": 2, "num_attention_heads": 4,
                                        "vocab_size": 100}), "hidden_size"),
    "unsupported field": (json.dumps({**json.loads(_config("llama-3.1-8b")),
                                      "attn_logit_softcapping": 50.0}),
                          "attn_logit_softcapping"),
    "wrong type": (json.dumps({**json.loads(_config("llama-3.1-8b")), "hidden_size": "4096"}),
                   "hidden_size"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_paste_is_refused_naming_the_field(case: str) -> None:
    text, named = BAD[case]
    with pytest.raises(InputError) as raised:
        sims.load("roofline").simulate(model=CUSTOM, model_config=text)
    assert raised.value.input == INPUT and named in str(raised.value)
    # The page's reader (the worker's runner.read) refuses it the same way, beside the box.
    answer = json.loads(runner.read("roofline", INPUT, text))
    assert answer == {"ok": False, "input": INPUT, "message": str(raised.value)}


def test_the_pages_reader_gives_the_compact_text_and_what_it_read() -> None:
    answer = json.loads(runner.read("goodput", INPUT, _config("llama-3.1-8b")))
    assert answer["ok"] and answer["value"] == read(_config("llama-3.1-8b"))[0]
    assert answer["note"] == ("Your model: 8.0B parameters, 32 layers, hidden size 4096, 32 "
                              "query and 8 KV heads; 128 KiB of BF16 KV cache per token; "
                              "weights BF16, 16.1 GB")


def test_the_moe_sim_refuses_a_dense_paste_by_naming_the_config() -> None:
    with pytest.raises(InputError) as raised:
        sims.load("moe").simulate(model=CUSTOM, model_config=_config("llama-3.1-8b"))
    assert raised.value.input == INPUT and "dense" in str(raised.value)


def _printed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def test_model_config_file_on_the_command_line_is_the_catalogue_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(CONFIGS / "llama-3.1-8b.json")
    name = MODELS["llama-3.1-8b"].name
    for argv in (["roofline"], ["step"], ["serve", "--requests", "64"],
                 ["plan", "--isl", "500", "--osl", "100", "--rate", "2", "--ttft_s", "1",
                  "--tpot_s", "0.05", "--gpu", "h100"]):
        ours = _printed([*argv, "--model", "llama-3.1-8b"], capsys).replace(name, "<model>")
        pasted = json.loads(_printed([*argv, "--model-config", path], capsys))
        inputs = pasted.get("inputs", {})
        assert inputs.pop(INPUT, read(_config("llama-3.1-8b"))[0]).replace("\n", "")
        text = json.dumps(pasted).replace(NAME, "<model>").replace(f'"{CUSTOM}"',
                                                                   '"llama-3.1-8b"')
        assert json.loads(text) == json.loads(ours), argv[0]


@pytest.mark.parametrize(("argv", "named"), [
    (["roofline", "--model-config", "{bad}"], "model_config: {bad}: cannot be read"),
    (["roofline", "--model", "llama-3.1-8b", "--model-config", "{good}"], "model: "),
    (["plan", "--model-config", "{bad}"], "model_config: {bad}: cannot be read"),
    (["roofline", "--model-config", "{no_hidden}"], "hidden_size"),
])
def test_a_bad_model_config_file_exits_2_naming_it(
    argv: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    no_hidden = tmp_path / "config.json"
    no_hidden.write_text(BAD["missing hidden_size"][0], encoding="utf-8")
    paths = {"bad": str(tmp_path / "missing.json"), "good": str(CONFIGS / "llama-3.1-8b.json"),
             "no_hidden": str(no_hidden)}
    argv = [word.format(**paths) for word in argv]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert named.format(**paths) in error and error.startswith("error: ")
