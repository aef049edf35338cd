"""Fit each engine profile's overheads to the served runs' training points alone, and write
them back with the errors they make.

An engine's defaults (admission, token budget, batch limit, CUDA graphs, all-reduce) are read
from its source and written by hand; what no source states is the time it adds: per step,
with and without a CUDA graph, and per request (HTTP, tokenization, the server's queue).
Those three are fitted here, after the kernel profiles (the served runs are priced on them),
to the engine's training points (content/catalogue/calibration/, kinds ttft, tpot, itl and
serving_throughput): the sum of log(ours / measured)^2, by Nelder-Mead from a fixed start
(calibrate.fit.search's transforms keep each time above 0). An overhead no training point
moves (no first-token time, no prefill step) keeps the file's value.

A deployment whose calibration set leaves its token budget to the fit (the set's `fitted`:
NIM publishes none of its engines' max_num_tokens) is priced at the budget of BUDGETS that
best prices its own training runs (the same loss, that deployment's points alone). Budgets
and overheads are fitted in turn from the fixed start: budgets under START's overheads, the
overheads under those budgets, the budgets again under the fitted overheads, and the
overheads once more; so the same points always give the same profile. The budgets go to the
engine's `deployments`, which only the calibration prices with: a reader's run takes the
engine's own budget, or the one they give.

A fit is kept only if it is physically an overhead: no step's overhead above the shortest
gap between tokens measured in the engine's training runs, and no request's above the
shortest first-token time. A fit beyond either has put into the overheads what the model
leaves out of those runs (slower kernels, an unmodelled phase), so the engine keeps the
search's starting values (START), marked as assumed with the reason.

The fitted block is the end of the engine's file, after FITTED_MARK: the rest is hand-written
and kept byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from calibrate.accuracy import SETS
from calibrate.fit import from_search, to_search
from calibrate.harness import Harness, Point
from ridgepoint.base.layout import Layout
from ridgepoint.catalogue.calibration import Errors
from ridgepoint.catalogue.categories import SERVED

FITTED_MARK = "# Fitted by scripts/calibration.py --fit (make fit); rewritten there, not by hand."
METRICS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "serving_throughput": "throughput"}
# The overheads, in seconds, with the fields of the sims' Engine they set.
FIELDS = {"graph_s": "graph_overhead_s", "eager_s": "eager_overhead_s",
          "request_s": "request_overhead_s"}
# Where the search starts (s), fixed so that the same points always give the same overheads.
START = {"graph_s": 1e-4, "eager_s": 1e-3, "request_s": 1e-2}
TOLERANCE = 2e-3  # relative: a committed overhead this close to the fit's is the fit's
ERROR_TOLERANCE = 1e-3
# The token budgets (per attention rank) a deployment's runs are tried at: powers of two
# around TensorRT-LLM's default of 8,192, from 512 to 65,536.
BUDGETS = tuple(2 ** power for power in range(9, 17))
Budgets = dict[tuple[str, int], int]  # (model, GPUs) -> tokens per step


def served_points(harness: Harness, engine: str, chosen: str) -> list[Point]:
    return [point for point in harness.points if point.point.kind in SERVED
            and point.point.case.engine == engine and point.point.set == chosen]


def budgeted(harness: Harness, key: str) -> list[tuple[str, int]]:
    """The (model, GPUs) of the engine's training runs whose set leaves the budget to the
    fit, in order."""
    found = {(point.point.case.model or "", point.point.case.tp or 1): None
             for point in served_points(harness, key, "training")
             if "token_budget" in harness.site.calibration[point.file].fitted}
    return sorted(found)


def fit_budgets(harness: Harness, key: str, engine: Any) -> Budgets:
    """For each deployment that needs one, the budget of BUDGETS that best prices its
    training runs with `engine`'s overheads (the smallest loss; the first on a tie)."""
    engines = {**harness.engines, key: engine}
    chosen: Budgets = {}
    for model, gpus in budgeted(harness, key):
        points = [point for point in served_points(harness, key, "training")
                  if (point.point.case.model, point.point.case.tp) == (model, gpus)]

        def loss(tokens: int, points: list[Point] = points, deployment: tuple[str, int] = (
                model, gpus)) -> float:
            budgets = {**harness.budgets, key: {deployment: tokens}}
            return sum(math.log(harness.ratio(point, None, engines, budgets)) ** 2
                       for point in points)

        chosen[(model, gpus)] = min(BUDGETS, key=loss)
    return chosen


def fit_engine(harness: Harness, key: str, budgets: Budgets | None = None
               ) -> tuple[dict[str, float] | None, str]:
    """The overheads (the sims' Engine field names, seconds) that best price the engine's
    training points, its deployments at `budgets` (default: the profile's), and their
    source; None (with the reason) when it has none or the fit is not physically an
    overhead."""
    trial = harness.budgets if budgets is None else {**harness.budgets, key: budgets}
    training = served_points(harness, key, "training")
    if not training:
        return None, ("assumed, not fitted: no training runs of this engine; the fit's "
                      "starting values")
    base = harness.engines[key]
    names = ["graph_s", "eager_s"]
    if any(point.point.kind == "ttft" for point in training):
        names.append("request_s")

    def loss(x: Sequence[float]) -> float:
        values = {name: from_search(name, v) for name, v in zip(names, x, strict=True)}
        engine = base._replace(**{FIELDS[name]: value for name, value in values.items()})
        engines = {**harness.engines, key: engine}
        return sum(math.log(harness.ratio(point, None, engines, trial)) ** 2
                   for point in training)

    start = [to_search(name, START[name]) for name in names]
    found = _search(loss, np.array(start))
    fitted = {FIELDS[name]: getattr(base, FIELDS[name]) for name in FIELDS}
    fitted.update({FIELDS[name]: from_search(name, v)
                   for name, v in zip(names, found, strict=True)})
    files = ", ".join(sorted({point.file for point in training}))
    gaps = [point.measured_s for point in training if point.point.kind in ("tpot", "itl")]
    firsts = [point.measured_s for point in training if point.point.kind == "ttft"]
    step = max(fitted["graph_overhead_s"], fitted["eager_overhead_s"])
    if (gaps and step > min(gaps)) or (firsts and fitted["request_overhead_s"] > min(firsts)):
        return None, (f"assumed, not fitted: a fit to the {len(training)} training points of "
                      f"{files} gives {step * 1e3:.3g} ms a step and "
                      f"{fitted['request_overhead_s'] * 1e3:.3g} ms a request, beyond the "
                      f"shortest measured gap between tokens ({min(gaps, default=0) * 1e3:.3g} "
                      f"ms) or first token ({min(firsts, default=0) * 1e3:.3g} ms): what the "
                      f"model leaves out of those runs, not overheads; the fit's starting "
                      f"values")
    return fitted, f"fitted by scripts/calibration.py to {len(training)} training points of {files}"


def _search(loss: Callable[[Sequence[float]], float], x0: Any) -> Any:
    """Nelder-Mead from `x0`, then once more from where it stopped (a fresh simplex)."""
    options = {"xatol": 1e-4, "fatol": 1e-8, "maxfev": 400}
    first = minimize(loss, x0, method="Nelder-Mead", options=options)
    return minimize(loss, first.x, method="Nelder-Mead", options=options).x


def fit_profile(harness: Harness, key: str
                ) -> tuple[dict[str, float] | None, str, Budgets]:
    """The engine's overheads (as fit_engine gives them) and its deployments' budgets,
    fitted in turn from the fixed start (the module's docstring)."""
    start = harness.engines[key]._replace(**{FIELDS[name]: START[name] for name in FIELDS})
    budgets = fit_budgets(harness, key, start)
    fitted, source = fit_engine(harness, key, budgets)
    if budgets:
        budgets = fit_budgets(harness, key, start._replace(**(fitted or {})))
        fitted, source = fit_engine(harness, key, budgets)
    return fitted, source, budgets


def errors(harness: Harness, key: str, engines: dict[str, Any],
           budgets: Mapping[str, Budgets] | None = None) -> dict[str, dict[str, Errors]]:
    """The engine's errors per metric and set under `engines` and deployment `budgets`."""
    found: dict[str, dict[str, Errors]] = {}
    for chosen in SETS:
        ratios: dict[str, list[float]] = {}
        for point in served_points(harness, key, chosen):
            ratios.setdefault(METRICS[point.point.kind], []).append(
                harness.ratio(point, None, engines, budgets))
        for metric, values in ratios.items():
            found.setdefault(metric, {})[chosen] = Errors.of_ratios(values)
    return {metric: found[metric] for metric in METRICS.values() if metric in found}


def render(fitted: dict[str, float], source: str, found: dict[str, dict[str, Errors]],
           budgets: Budgets | None = None, files: str = "") -> str:
    """The fitted block of an engine's file (its deployments' budgets, fitted to the
    training runs of `files`, when there are any)."""
    lines = [FITTED_MARK,
             f"step_overhead: {{graph_us: {fitted['graph_overhead_s'] * 1e6:.4g}, "
             f"eager_us: {fitted['eager_overhead_s'] * 1e6:.4g}, source: \"{source}\"}}",
             f"request_overhead: {{ms: {fitted['request_overhead_s'] * 1e3:.4g}, "
             f"source: \"{source}\"}}"]
    if budgets:
        lines += ["deployments:",
                  f"  source: \"fitted by scripts/calibration.py to each deployment's training "
                  f"runs in {files}, whose set leaves the token budget to the fit: of "
                  f"{BUDGETS[0]:,} to {BUDGETS[-1]:,} tokens by powers of two, the one that "
                  f"prices them best; only the calibration prices with these\"",
                  "  token_budgets:"]
        lines += [f"  - {{model: {model}, gpus: {gpus}, tokens: {tokens}}}"
                  for (model, gpus), tokens in sorted(budgets.items())]
    if found:
        lines += ["accuracy:",
                  "  source: \"scripts/calibration.py --fit: the served runs of this engine "
                  "(content/catalogue/calibration/) priced with the overheads above"
                  + (" and its deployments' budgets" if budgets else "")
                  + "; |ours / measured - 1| as fractions\"",
                  "  metrics:"]
        for metric, by_set in found.items():
            sets = ", ".join(f"{name}: {{points: {e.count}, median: {e.median:.4f}, "
                             f"p90: {e.p90:.4f}}}" for name, e in by_set.items())
            lines.append(f"  - {{metric: {metric}, {sets}}}")
    return "\n".join(lines) + "\n"


def refit_engines(harness: Harness, layout: Layout, write: bool) -> list[str]:
    """Fit every engine with training points; write the changed files when `write`. The
    keys of those whose overheads or stated errors the fit changes."""
    changed = []
    for key in sorted(harness.site.engines):
        record = harness.site.engines[key]
        fitted, source, budgets = fit_profile(harness, key)
        current = harness.engines[key]
        values = fitted or {FIELDS[name]: START[name] for name in FIELDS}
        engines = {**harness.engines, key: current._replace(**values)}
        found = errors(harness, key, engines, {**harness.budgets, key: budgets})
        same = record.step_overhead.source == source and all(
            math.isclose(getattr(current, name), value, rel_tol=TOLERANCE, abs_tol=1e-7)
            for name, value in values.items())
        same = same and harness.budgets.get(key, {}) == budgets
        same = same and _same_errors(current.accuracy, found)
        if same:
            continue
        changed.append(key)
        if write:
            path = Path(record.source or layout.content / "catalogue" / "engines"
                        / f"{key}.yaml")
            text = path.read_text(encoding="utf-8")
            kept = text.split(FITTED_MARK, 1)[0]
            files = ", ".join(sorted({point.file for point in served_points(harness, key,
                                                                            "training")
                                      if (point.point.case.model, point.point.case.tp)
                                      in budgets}))
            path.write_text(kept + render(values, source, found, budgets, files),
                            encoding="utf-8")
    return changed


def _same_errors(stated: dict[tuple[str, str], Any], found: dict[str, dict[str, Errors]]
                 ) -> bool:
    expected = {(metric, name): errors for metric, by_set in found.items()
                for name, errors in by_set.items()}
    if stated.keys() != expected.keys():
        return False
    return all(stated[key].points == e.count and abs(stated[key].median - e.median)
               <= ERROR_TOLERANCE and abs(stated[key].p90 - e.p90) <= ERROR_TOLERANCE
               for key, e in expected.items())
