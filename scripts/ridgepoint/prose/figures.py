"""Figures in prose come from code: `{{ sim:... }}` and `{{ data:... }}` placeholders.

An article or explainer never types a number that a sim or an experiment produced; it
names where the number comes from, and staging writes the value in:

    {{ sim:chunked_prefill.unchunked_stall_s | .1f }}             -> 2.0
    {{ sim:speculative.speedup lookahead=4 batch_size=1 | .2f }}  -> 2.61
    {{ sim:chunked_prefill.chunked_max_gap_s x1000 | .0f }}       -> 31   (seconds to ms)
    {{ data:streaming.results.sse.ttft_ms | .1f }}                -> from
                                    content/data/experiments/streaming.json

A sim runs once per distinct set of inputs per build. A reference to a sim, input, metric,
result file or key that does not exist is a content error with the file and line, so a
renamed metric breaks the build instead of silently printing a stale number.

A figure the site does not compute is typed by hand, and marked so that a reader of the
source (and tests/pipeline/test_hand_typed_numbers.py) can tell it from a forgotten
placeholder; staging writes the text as it is:

    {{ cited: 2.3-2.8x }}   a figure quoted from the outside source the sentence names
    {{ input: 30 µs }}      an input the reader sets, or an assumption the page states

Words that compare computed figures ("about twice as many") are a `{{ claim: ... }}`, which
staging evaluates with the same figures and replaces by its words (ridgepoint.prose.claims).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.content.model import Site
from ridgepoint.prose import claims
from ridgepoint.sims.simrun import SimRuns

PLACEHOLDER = re.compile(r"\{\{\s*(sim|data|cited|input|claim):(.*?)\s*\}\}")
MARKED = ("cited", "input")  # hand-typed figures, written as they are
FENCE = re.compile(r"^\s*(```|~~~)")
SCALE = re.compile(r"^x(\d+(?:\.\d+)?(?:e-?\d+)?)$")

SimRunner = Callable[[str, dict[str, str]], dict[str, Any]]


class FigureSource:
    """Resolves placeholders against sims and experiment result files (`layout.experiments`),
    caching each run. `runner` runs a sim (LookupError for an unknown module, ValueError for
    a bad input); by default natively, cached across builds (ridgepoint.sims.simrun)."""

    def __init__(self, layout: Layout, runner: SimRunner | None = None) -> None:
        self.layout = layout
        self.runner = runner or SimRuns.of(layout).run
        self._runs: dict[tuple[str, tuple[tuple[str, str], ...]], dict[str, Any]] = {}
        self._data: dict[str, Any] = {}

    def sim_value(self, module: str, metric: str, inputs: dict[str, str]) -> Any:
        key = (module, tuple(sorted(inputs.items())))
        if key not in self._runs:
            self._runs[key] = self.runner(module, inputs)
        summary = self._runs[key]["summary"]
        if metric not in summary:
            raise KeyError(f"sim {module} has no metric {metric!r} (metrics: {', '.join(summary)})")
        return summary[metric]

    def data_value(self, experiment: str, path: list[str]) -> Any:
        if experiment not in self._data:
            file = self.layout.experiments / f"{experiment}.json"
            if not file.is_file():
                raise KeyError(f"no result file {self.layout.relative(file)}")
            self._data[experiment] = json.loads(file.read_text(encoding="utf-8"))
        value: Any = self._data[experiment]
        for depth, key in enumerate(path):
            if isinstance(value, dict) and key in value:
                value = value[key]
            elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            else:
                where = ".".join([experiment, *path[:depth]])
                raise KeyError(f"{where} has no key {key!r}")
        return value


def figure_value(source: FigureSource, kind: str, words: list[str]) -> Any:
    """The value a `sim` or `data` reference names (`words`: its target, then its options),
    scaled by its x<factor>; ValueError/KeyError/LookupError saying what is wrong."""
    if not words:
        raise ValueError("empty figure reference")
    target, options = words[0], words[1:]
    scale: float | None = None
    inputs: dict[str, str] = {}
    for option in options:
        if match := SCALE.match(option):
            scale = float(match.group(1))
        elif kind == "sim" and "=" in option:
            name, _, value = option.partition("=")
            inputs[name] = value
        else:
            raise ValueError(f"cannot read {option!r} (expected input=value or x<factor>)")
    if kind == "sim":
        module, dot, metric = target.partition(".")
        if not dot or not metric:
            raise ValueError(f"{target!r} is not <module>.<metric>")
        value = source.sim_value(module, metric, inputs)
    else:
        experiment, *path = target.split(".")
        if not path:
            raise ValueError(f"{target!r} is not <experiment>.<key>[.<key>...]")
        value = source.data_value(experiment, path)
    if scale is not None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"cannot scale {value!r}: not a number")
        value = value * scale
    return value


def _resolve(source: FigureSource, kind: str, body: str) -> str:
    """One placeholder's text, or ValueError/KeyError/LookupError saying what is wrong."""
    if kind in MARKED:
        if not any(character.isdigit() for character in body):
            raise ValueError(f"a {kind} figure must contain the figure it marks")
        return body.strip()
    if kind == "claim":
        return claims.check(body, lambda kind, words: figure_value(source, kind, words))
    reference, _, spec = body.partition("|")
    return format(figure_value(source, kind, reference.split()), spec.strip())


def render_text(text: str, source: FigureSource) -> str:
    """A front-matter string (a hook, a summary) with its placeholders filled in. One that
    does not resolve is left as written: the page's own pass reports it at its line."""

    def substitute(found: re.Match[str]) -> str:
        try:
            return _resolve(source, found.group(1), found.group(2))
        except (ValueError, KeyError, LookupError):
            return found.group(0)

    return PLACEHOLDER.sub(substitute, text)


def with_figures(site: Site, source: FigureSource) -> Site:
    """The Site with each hook and summary as pages and feeds show it: filled in."""
    explainers = {slug: replace(e, hook=render_text(e.hook, source))
                  for slug, e in site.explainers.items()}
    articles = {slug: replace(a, summary=render_text(a.summary, source))
                for slug, a in site.articles.items()}
    return replace(site, explainers=explainers, articles=articles)


def render_figures(markdown: str, relpath: str, source: FigureSource) -> str:
    """Replace every placeholder outside fenced code; raise ContentErrors for bad ones."""
    errors: list[ContentError] = []
    out: list[str] = []
    fence: str | None = None
    for number, line in enumerate(markdown.splitlines(keepends=True), start=1):
        if match := FENCE.match(line):
            marker = match.group(1)
            fence = None if fence == marker else (fence or marker)
            out.append(line)
            continue
        if fence:
            out.append(line)
            continue

        def substitute(found: re.Match[str], number: int = number) -> str:
            try:
                return _resolve(source, found.group(1), found.group(2))
            except (ValueError, KeyError, LookupError) as error:
                if found.group(1) == "claim":
                    errors.append(claims.error(relpath, number, found.group(0), error))
                    return found.group(0)
                message = error.args[0] if error.args else str(error)
                errors.append(
                    ContentError(
                        relpath, number, "figure", f"{found.group(0)}: {message}",
                        "{{ sim:<module>.<metric> [input=value ...] [x<factor>] [| <format>] }}"
                        ", {{ data:<experiment>.<key>... }}, {{ cited: <figure> }}"
                        " or {{ input: <figure> }}",
                    )
                )
                return found.group(0)

        out.append(PLACEHOLDER.sub(substitute, line))
    if errors:
        raise ContentErrors(errors)
    return "".join(out)
