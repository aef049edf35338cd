"""The sim contract: declared inputs, the one validation, and the normalised result."""

from __future__ import annotations

import json
import math

import pytest

from sims.kit.contract import (
    Choice,
    InputError,
    Number,
    Text,
    defaults,
    describe,
    normalise,
    simulation,
    validate,
)

BATCH = Number("batch_size", "Batch size", default=8, min=1, max=64, unit="requests")
RATE = Number("rate", "Acceptance rate", default=0.8, min=0.0, max=1.0, step=0.05)
GPU = Choice("gpu", "GPU", "h100", ("h100", "a100"))
INPUTS = (BATCH, RATE, GPU)


def test_an_integer_input_parses_numbers_and_strings() -> None:
    assert BATCH.parse(8) == 8
    assert BATCH.parse("12") == 12
    assert BATCH.parse(" 16 ") == 16
    assert BATCH.parse(4.0) == 4
    assert isinstance(BATCH.parse("4.0"), int)


def test_a_float_input_stays_a_float() -> None:
    assert RATE.integer is False
    assert RATE.parse("0.5") == 0.5
    assert isinstance(RATE.parse(1), float)


@pytest.mark.parametrize("bad", [0, 65, "0", "100", 2.5, "eight", "", True, None, "nan", "inf"])
def test_a_bad_number_is_refused_naming_the_input_and_its_range(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^batch_size: expected an integer from 1 to 64 requests"):
        BATCH.parse(bad)


def test_the_error_carries_the_input_for_the_page() -> None:
    with pytest.raises(InputError) as caught:
        RATE.parse(1.5)
    assert caught.value.input == "rate"
    assert str(caught.value) == "rate: expected a number from 0 to 1, got 1.5"


def test_a_choice_accepts_only_its_keys() -> None:
    assert GPU.parse("a100") == "a100"
    with pytest.raises(ValueError, match=r"^gpu: expected one of h100, a100, got 'b200'"):
        GPU.parse("b200")


def test_a_default_outside_its_range_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="default 0 outside"):
        Number("n", "N", default=0, min=1, max=2)
    with pytest.raises(ValueError, match="not among"):
        Choice("c", "C", "x", ("a", "b"))


NOTE = Text("note", "Note", max_length=20, file=".json")


def test_a_text_input_takes_a_short_string_trimmed() -> None:
    assert NOTE.parse("  c16 55 15 ") == "c16 55 15"
    assert NOTE.parse("") == ""
    assert NOTE.describe() == {"kind": "text", "name": "note", "label": "Note", "default": "",
                               "max_length": 20, "help": "", "file": ".json", "lines": 1,
                               "shown_when": "", "reads": False}


@pytest.mark.parametrize("bad", [7, None, True, ["a"], "x" * 21])
def test_a_text_input_refuses_what_is_not_a_short_string(bad: object) -> None:
    with pytest.raises(InputError) as caught:
        NOTE.parse(bad)
    assert caught.value.input == "note"
    assert str(caught.value).startswith("note: expected text of at most 20 characters, got ")


def test_a_long_text_is_refused_by_its_length_not_echoed() -> None:
    with pytest.raises(InputError, match="got 5,000 characters$"):
        NOTE.parse("y" * 5000)


def test_validate_fills_defaults_and_refuses_unknown_names() -> None:
    assert validate(INPUTS, {"batch_size": "4"}) == {"batch_size": 4, "rate": 0.8, "gpu": "h100"}
    assert validate(INPUTS, {}) == defaults(INPUTS)
    with pytest.raises(InputError, match=r"^batchsize: not an input of this sim") as caught:
        validate(INPUTS, {"batchsize": 4})
    assert caught.value.input == "batchsize"


def test_describe_is_plain_json_the_page_builds_controls_from() -> None:
    described = describe(INPUTS)
    assert json.loads(json.dumps(described)) == described
    assert [d["kind"] for d in described] == ["number", "number", "choice"]
    assert described[0] | {"integer": True} == described[0]
    assert described[2]["choices"] == ["h100", "a100"]


def test_normalise_rounds_to_six_significant_digits() -> None:
    assert normalise(1 / 3) == 0.333333
    assert normalise(123456789.0) == 123457000.0
    assert normalise({"a": (1.23456789e-5, 2)}) == {"a": [1.23457e-05, 2]}


def test_normalise_turns_cancellation_noise_into_zero() -> None:
    noise = 0.1 + 0.2 - 0.3  # 5.6e-17, not 0, and not the same noise in every runtime
    assert noise != 0
    assert normalise(noise) == 0.0
    assert math.copysign(1, normalise(-0.0)) == 1.0


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_normalise_refuses_non_finite_numbers(bad: float) -> None:
    with pytest.raises(ArithmeticError, match=r"result\.x\[1\] is"):
        normalise({"x": [1.0, bad]})


def test_normalise_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match="result.s is a set"):
        normalise({"s": {1, 2}})


def _model(*, batch_size: int, rate: float, gpu: str) -> dict:
    return {"summary": {"tokens": batch_size * rate, "gpu": gpu}, "charts": []}


def test_simulation_validates_fills_defaults_and_normalises() -> None:
    simulate = simulation(INPUTS)(_model)
    assert simulate(batch_size="3", rate=1 / 3) == {
        "summary": {"tokens": 1.0, "gpu": "h100"},
        "charts": [],
    }
    assert simulate.inputs is INPUTS
    with pytest.raises(ValueError, match="^batch_size:"):
        simulate(batch_size=0)


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ({"charts": []}, "non-empty 'summary'"),
        ({"summary": {}, "charts": []}, "non-empty 'summary'"),
        ({"summary": {"x": [1]}, "charts": []}, "summary.x must be a number"),
        ({"summary": {"x": 1}}, "'charts' list"),
    ],
)
def test_simulation_refuses_a_result_of_the_wrong_shape(result: dict, message: str) -> None:
    simulate = simulation(())(lambda: result)
    with pytest.raises(TypeError, match=message):
        simulate()
