"""Every sim keeps the contract: a plain-JSON result at its defaults, every summary metric
labelled, finite numbers, charts the page can draw and swap data in, and a ValueError
that names the input and its range for every value outside it."""

from __future__ import annotations

import copy
import json
import math
import re
from types import ModuleType
from typing import Any

import pytest

import sims
from ridgepoint.sims.charts import chart_svg
from sims.kit.charts import DATASET, NARROW_PLOT_PX
from sims.kit.contract import Choice, InputError, Number, Text
from tests.repo import LAYOUT

NAMES = sims.sim_names()


@pytest.fixture(scope="module", params=NAMES)
def sim(request: pytest.FixtureRequest) -> ModuleType:
    return sims.load(request.param)


@pytest.fixture(scope="module")
def result(sim: ModuleType) -> dict[str, Any]:
    return sim.simulate()


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [value]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return []


def test_there_are_sims() -> None:
    assert "batching" in NAMES


def test_declarations(sim: ModuleType) -> None:
    assert isinstance(sim.TITLE, str) and sim.TITLE
    assert sim.INPUTS and all(isinstance(spec, Number | Choice | Text) for spec in sim.INPUTS)
    assert len({spec.name for spec in sim.INPUTS}) == len(sim.INPUTS)
    assert all(isinstance(label, str) and label for label in sim.METRICS.values())


def test_result_is_plain_json(result: dict[str, Any]) -> None:
    assert json.loads(json.dumps(result)) == result


def test_every_summary_metric_is_labelled(sim: ModuleType, result: dict[str, Any]) -> None:
    assert set(result["summary"]) <= set(sim.METRICS), "summary keys missing from METRICS"


def test_every_result_ends_with_its_regime_and_measured_error(
    sim: ModuleType, result: dict[str, Any]
) -> None:
    """Issue 38: the last entry says which kernels the result's step spends its time in and
    the calibration's error there, or, for a sim that prices no GPU time, that none applies."""
    assert list(sim.METRICS)[-1] == "accuracy"
    note = result["summary"]["accuracy"]
    assert isinstance(note, str)
    assert "median error" in note or "no measured error applies" in note, note


def test_numbers_are_finite(result: dict[str, Any]) -> None:
    assert all(math.isfinite(n) for n in _numbers(result))


def test_charts_name_their_data_table(result: dict[str, Any]) -> None:
    assert result["charts"], "a sim shows at least one chart"
    for spec in result["charts"]:
        assert isinstance(spec, dict)
        assert spec["data"]["name"] == DATASET
        assert isinstance(spec["data"]["values"], list)
        assert spec.get("title") and spec.get("description"), "the SVG's text alternative"


def _encodings(spec: dict[str, Any]) -> list[dict[str, Any]]:
    found = [spec.get("encoding", {})]
    for part in spec.get("layer", []):
        found.extend(_encodings(part))
    return found


def test_quantitative_axes_carry_a_unit(result: dict[str, Any]) -> None:
    for spec in result["charts"]:
        for encoding in _encodings(spec):
            for channel in ("x", "y"):
                axis = encoding.get(channel, {})
                if axis.get("type") == "quantitative" and axis.get("axis", {}) is not None:
                    title = axis.get("title")
                    assert isinstance(title, str) and "(" in title and title.endswith(")"), (
                        f"{spec['title']}: {channel} axis title {title!r} has no (unit)"
                    )


def test_tables_have_the_columns_they_declare(result: dict[str, Any]) -> None:
    for table in result.get("tables", []):
        keys = [column["key"] for column in table["columns"]]
        assert table["title"] and all(column["label"] for column in table["columns"])
        assert all(set(keys) <= set(row) for row in table["rows"])
        assert set(table) <= {"title", "columns", "rows", "open"}
        assert isinstance(table.get("open", False), bool)


def test_charts_render_to_svg(result: dict[str, Any]) -> None:
    """vl-convert (the Vega-Lite the browser uses too) accepts every spec."""
    for index, spec in enumerate(result["charts"]):
        svg = chart_svg(spec, f"c{index}", LAYOUT.charts)
        assert svg.startswith("<svg") and "<title" in svg and "</svg>" in svg


# A 390-pixel phone's plot: the page's column (332 px) less the y axis's room.
PHONE_PLOT_PX = 260


def _svg_width(spec: dict[str, Any]) -> float:
    svg = chart_svg(spec, "c", LAYOUT.charts)
    return float(re.search(r'<svg\b[^>]*\bwidth="([\d.]+)"', svg).group(1))


def _without_legends(view: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(view)
    for part in [out, *out.get("layer", [])]:
        for definition in part.get("encoding", {}).values():
            if isinstance(definition, dict) and "legend" in definition:
                definition["legend"] = None
    return out


@pytest.mark.parametrize("plot_px", [PHONE_PLOT_PX, NARROW_PLOT_PX],
                         ids=["phone", "narrowest-with-legend-rows"])
def test_legends_fit_the_plot(result: dict[str, Any], plot_px: int) -> None:
    """Vega does not wrap a legend: a row of long labels wider than the plot would run past
    a live chart's edge, where its canvas is cut off (sims.kit.charts lists a top or bottom
    legend's entries one per line on a plot narrower than NARROW_PLOT_PX). At a phone's plot
    width, and at the narrowest plot that keeps a legend's row (the legends at one edge of a
    chart share it), each chart is as wide with its legends as without them."""
    for index, spec in enumerate(result["charts"]):
        sized = {**spec, "width": plot_px}
        assert _svg_width(sized) <= _svg_width(_without_legends(sized)), index


# Channels whose legend draws its symbols in the mark's colour; any other legend's symbols
# (opacity, dashes, shapes) are Vega's near black unless something gives them a colour.
_COLOUR_CHANNELS = ("color", "fill", "stroke")


def _coloured(definition: dict[str, Any], encoding: dict[str, Any], mark: Any) -> bool:
    legend = definition["legend"]
    if "symbolFillColor" in legend or "symbolStrokeColor" in legend:
        return True
    if isinstance(mark, dict) and "color" in mark:
        return True
    colour = encoding.get("color")
    return isinstance(colour, dict) and ("value" in colour
                                         or colour.get("field") == definition.get("field"))


def test_every_legend_draws_its_symbols_in_a_colour(result: dict[str, Any]) -> None:
    """A legend of a channel other than colour (opacity, dashes) takes its symbols' colour
    from a fixed mark colour, from a colour legend of the same field (Vega merges them), or
    from the sim; else they are near black, lost on the dark scheme's background."""
    for index, spec in enumerate(result["charts"]):
        for view in [spec, *spec.get("layer", [])]:
            encoding = view.get("encoding", {})
            for channel, definition in encoding.items():
                if (channel in _COLOUR_CHANNELS or not isinstance(definition, dict)
                        or not isinstance(definition.get("legend"), dict)):
                    continue
                mark = view.get("mark", spec.get("mark"))
                assert _coloured(definition, encoding, mark), (index, channel)


def _outside(spec: Number) -> list[int | float]:
    return [spec.min - spec.step, spec.max + spec.step]


def test_out_of_range_inputs_raise_naming_input_and_range(sim: ModuleType) -> None:
    for spec in sim.INPUTS:
        bad_values = (_outside(spec) if isinstance(spec, Number) else
                      ["x" * (spec.max_length + 1), 7] if isinstance(spec, Text) else
                      ["no-such-choice"])
        for bad in bad_values:
            with pytest.raises(ValueError) as caught:
                sim.simulate(**{spec.name: bad})
            message = str(caught.value)
            assert message.startswith(f"{spec.name}: "), message
            assert spec.allowed() in message, message
            assert isinstance(caught.value, InputError) and caught.value.input == spec.name


def test_unknown_inputs_raise(sim: ModuleType) -> None:
    with pytest.raises(ValueError, match="not an input of this sim"):
        sim.simulate(no_such_input=1)
