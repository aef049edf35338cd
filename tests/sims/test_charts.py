"""sims.charts: the legends a chart lays out in rows take one column on a narrow plot, and
every other legend is left as the sim gave it."""

from __future__ import annotations

from ridgepoint.sims.charts import SVG_WIDTH
from sims.charts import NARROW_PLOT_PX, chart


def legends(spec: dict) -> list:
    views = [spec, *spec.get("layer", [])]
    return [view["encoding"]["color"].get("legend") for view in views if "encoding" in view]


def test_a_row_legend_takes_one_column_on_a_narrow_plot_and_its_own_otherwise() -> None:
    spec = chart("t", "d", [], encoding={"color": {"field": "a", "legend": {"orient": "top"}}},
                 layer=[{"encoding": {"color": {"field": "b", "legend": {
                     "orient": "bottom", "columns": 2, "symbolType": "square"}}}}])
    assert legends(spec) == [
        {"orient": "top", "columns": {"expr": f"width < {NARROW_PLOT_PX} ? 1 : 0"}},
        {"orient": "bottom", "columns": {"expr": f"width < {NARROW_PLOT_PX} ? 1 : 2"},
         "symbolType": "square"},
    ]


def test_other_legends_are_left_as_given() -> None:
    given = [None, {"orient": "right"}, {"orient": "top", "columns": 1},
             {"orient": "bottom", "direction": "vertical"}]
    for legend in given:
        spec = chart("t", "d", [], encoding={"color": {"field": "a", "legend": legend}})
        assert legends(spec) == [legend]
    spec = chart("t", "d", [], encoding={"color": {"field": "a"}})
    assert legends(spec) == [None]


def test_the_prerendered_charts_keep_their_legends_rows() -> None:
    """They are drawn at a plot of SVG_WIDTH, which must not count as narrow: the page's
    HTML would otherwise stack every row legend."""
    assert SVG_WIDTH >= NARROW_PLOT_PX
