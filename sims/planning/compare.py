"""Compare with what you measured: a benchmark's results file against `serve`'s prediction
for the same set-up and loads, the error of each point, and the two scales that fit them.

The page reads the file in the reader's browser, never uploading it (sims/plan.py's
`read_file`), and keeps only its gist, small enough for the URL, as the plan's `measured`
input, one line:

    <tool> <statistic> [<model>]; <load> [<isl>/<osl>] <ttft ms> <tpot ms>; ...

e.g. `vllm p50 llama-3.1-8b; c16 1000/200 55.12 15.71`: the tool that wrote the file; the
statistic compared (the median where every point gives one, else the mean); the catalogue's
model when the file names one it has (else the plan's model); then one point per measured
run: its load (`c16`, 16 users in a closed loop; `r6`, Poisson arrivals at 6 requests per
second), its mean prompt and answer lengths where the file gives them, and its first-token
and per-token times in milliseconds (`-` for one the file does not give). Runs with no load
the simulation can repeat (every request sent at once, GuideLLM's throughput run) are left
out.

The prediction is `serve` (sims.serving.deploy.served_run) at each point's load, for the
set-up the reader says was measured, since the file does not say (GPU type, GPUs,
parallelism, weights' and KV formats; the plan's engine). A point's lengths are the file's,
drawn with a small spread (BENCHMARK_SPREAD); without lengths the plan's workload is used,
with its spread. Its figure for the same statistic is multiplied by the plan's
current `ttft_scale` and `tpot_scale`; the error of a point is ours / measured - 1.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from sims.kit.contract import InputError
from sims.kit.memo import kept
from sims.physics import GPUS, MODELS, check_group, precision_for
from sims.physics.model_choice import model_for
from sims.planning.estimate import Target, burst_requests
from sims.planning.fit import fit_scales
from sims.planning.measured import Point, parse
from sims.planning.verify import SEED, requests_for
from sims.serving.deploy import figures, served_run
from sims.serving.engines import ENGINES

# The tools' synthetic prompts and answers are of one length, but their runs are not in
# lock-step: token times jitter, and a closed loop's users drift apart within a few rounds.
# The simulation has no jitter: with lengths all alike its users would send together round
# after round, each waiting for the others' prefills (16 users on an H100, 8B: a median
# first token of 0.24 s against 0.05 s). A spread of a tenth breaks the lock-step; from
# there to 0.2 the median first token moves by a few percent.
BENCHMARK_SPREAD = 0.1
MOST_POINTS = 16  # what the URL has room for (sims/plan.py: the input's max_length)
STATISTICS = ("p50", "mean", "p90", "p99")  # those serve's figures give
TOOLS = ("vllm", "guidellm", "genai-perf")
EXAMPLE = "vllm p50 llama-3.1-8b; c16 1000/200 55.12 15.71"


class Row(NamedTuple):
    """One measured point, as the `measured` input keeps it."""

    users: int  # 0 under a rate
    rate: float  # 0 in a closed loop
    isl: int  # 0: not given (the plan's workload)
    osl: int
    ttft_s: float | None
    tpot_s: float | None

    def load(self) -> str:
        if self.users:
            return f"{self.users} user{'s' if self.users > 1 else ''}"
        return f"{self.rate:g} requests/s"


class Measured(NamedTuple):
    tool: str
    statistic: str
    model: str | None
    rows: tuple[Row, ...]


def catalogue_model(name: str | None) -> str | None:
    """The catalogue's key for a model as a file names it ("meta-llama/Llama-3.1-8B-
    Instruct": llama-3.1-8b), the longest key it contains whole; None if none."""
    if not name:
        return None
    text = name.lower().replace("_", "-")
    found = [key for key in MODELS
             if re.search(rf"(^|[^a-z0-9.]){re.escape(key)}($|[^a-z0-9])", text)]
    return max(found, key=len) if found else None


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.4g}"


def encode(points: list[Point]) -> str:
    """The `measured` value for a results file's points; ValueError when none can be
    compared, or more than the URL has room for."""
    usable = [p for p in points if p.concurrency or p.rate]
    if not usable:
        raise ValueError("the file's runs have no load the planner can repeat (every request "
                         "sent at once, or a throughput run): give a run made with a fixed "
                         "concurrency (vllm --max-concurrency) or request rate")
    if len(usable) > MOST_POINTS:
        raise ValueError(f"the file holds {len(usable)} runs; the page compares up to "
                         f"{MOST_POINTS}: give a file with fewer (one sweep's loads)")
    statistic = next(s for s in STATISTICS
                     if all(s in p.ttft_s or s in p.tpot_s for p in usable))
    model = catalogue_model(next((p.model for p in usable if p.model), None))
    parts = [" ".join(x for x in (usable[0].tool, statistic, model) if x)]
    for p in usable:
        load = f"c{round(p.concurrency)}" if p.concurrency else f"r{p.rate:.4g}"
        lengths = f" {round(p.isl)}/{round(p.osl)}" if p.isl and p.osl else ""
        parts.append(f"{load}{lengths} {_ms(p.ttft_s.get(statistic))} "
                     f"{_ms(p.tpot_s.get(statistic))}")
    return "; ".join(parts)


def read_file(text: str) -> str:
    """A results file's text as the `measured` value (ValueError: what is wrong, what to
    give)."""
    return encode(parse(text))


def _refuse(what: str) -> InputError:
    return InputError("measured", f"{what}; expected measured points such as '{EXAMPLE}' "
                                  f"(load a results file to fill it)")


def _time(text: str) -> float | None:
    if text == "-":
        return None
    try:
        value = float(text)
    except ValueError:
        raise _refuse(f"{text!r} is not a time in milliseconds") from None
    if not 0 < value < 1e7:
        raise _refuse(f"{text!r} is not a time in milliseconds above zero")
    return value / 1000


def _row(text: str) -> Row:
    words = text.split()
    if len(words) not in (3, 4) or words[0][:1] not in ("c", "r"):
        raise _refuse(f"{text!r} is not a point (load, lengths, first-token and per-token "
                      f"times)")
    try:
        value = float(words[0][1:])
        isl, osl = (int(n) for n in words[1].split("/")) if len(words) == 4 else (0, 0)
    except ValueError:
        raise _refuse(f"{text!r} is not a point (load, lengths, first-token and per-token "
                      f"times)") from None
    users = round(value) if words[0][0] == "c" else 0
    if not (1 <= users <= 4096 if users else 0.001 <= value <= 10_000) or isl < 0 or osl < 0:
        raise _refuse(f"{words[0]!r}: a load from 1 to 4096 users or 0.001 to 10000 "
                      f"requests/s")
    ttft, tpot = _time(words[-2]), _time(words[-1])
    return Row(users, 0.0 if users else value, isl, osl, ttft, tpot)


def decode(text: str) -> Measured | None:
    """The `measured` value read back (None when empty); InputError naming `measured`."""
    if not text:
        return None
    head, *points = (part.strip() for part in text.split(";"))
    words = head.split()
    if not 2 <= len(words) <= 3 or words[0] not in TOOLS or words[1] not in STATISTICS:
        raise _refuse(f"{head!r} does not name a tool ({', '.join(TOOLS)}) and a statistic "
                      f"({', '.join(STATISTICS)})")
    model = words[2] if len(words) == 3 else None
    if model is not None and model not in MODELS:
        raise _refuse(f"{model!r} is not a model of the catalogue")
    if not points or len(points) > MOST_POINTS:
        raise _refuse(f"1 to {MOST_POINTS} points expected, got {len(points)}")
    return Measured(words[0], words[1], model, tuple(_row(p) for p in points))


class SetUp(NamedTuple):
    """What was measured: the file does not say."""

    model: str
    engine: str
    gpu: str
    gpus: int
    parallel: str
    weights: str
    kv: str
    model_config: str = ""  # the pasted config.json when model is "custom"


def measured_setup(measured: Measured, values: dict[str, Any]) -> SetUp:
    """The set-up a file was measured on, from the plan's inputs (`values`: the page's or
    the command line's): the file's model where it names one the catalogue has, else the
    plan's; the plan's engine; the `measured_*` inputs for the rest."""
    own = "" if measured.model else values.get("model_config", "")
    return SetUp(measured.model or values["model"], values["engine"], values["measured_gpu"],
                 values["measured_gpus"], values["measured_parallel"],
                 values["measured_weights"], values["measured_kv"], own)


# The reader's own inputs that a refused set-up names: the set-up's, not the plan's.
RENAMED = {"gpus": "measured_gpus", "parallel": "measured_parallel", "isl": "measured_gpus",
           "weights": "measured_weights", "kv": "measured_kv", "activations": "measured_weights"}


def check(setup: SetUp) -> None:
    """Refuse a set-up that cannot run, naming the reader's input for it."""
    gpu, model = GPUS[setup.gpu], model_for(setup.model, setup.model_config)
    try:
        check_group(gpu, model, setup.gpus, setup.parallel, gpus_input="gpus",
                    layout_input="parallel")
        precision_for(gpu, model, setup.weights, "auto", setup.kv)
    except InputError as error:
        raise _renamed(error) from None


def _renamed(error: InputError) -> InputError:
    name = RENAMED.get(error.input, error.input)
    message = str(error).split(": ", 1)[-1]
    return InputError(name, f"the measured set-up: {message}")


@kept(maxsize=64)
def predict(setup: SetUp, row: Row, isl: int, osl: int, spread: float, target: Target,
            statistic: str) -> tuple[float, float]:
    """serve's (TTFT, TPOT) `statistic` for `setup` at the row's load, unscaled."""
    gpu, model = GPUS[setup.gpu], model_for(setup.model, setup.model_config)
    engine = ENGINES[setup.engine]
    precision = precision_for(gpu, model, setup.weights, "auto", setup.kv)
    count = burst_requests(row.users) if row.users else requests_for(0, row.rate, target, osl)
    try:
        served, outputs = served_run(gpu, model, engine, setup.gpus, setup.parallel,
                                     precision, isl, osl, count, spread, SEED, row.users,
                                     row.rate or 1.0)
    except InputError as error:
        raise _renamed(error) from None
    found = figures(served, outputs, setup.gpus)
    return found["ttft_s"][statistic], (found["tpot_s"] or {}).get(statistic, 0.0)


def _error(ours: float, measured: float | None) -> float | None:
    return None if measured is None else ours / measured - 1


def _largest(rows: list[dict[str, Any]], ttft: float, tpot: float) -> float:
    """The largest |ours / measured - 1| over the points, with the latencies scaled so."""
    errors = [abs(r[f"{k}_raw"] * scale / r[f"measured_{k}_s"] - 1)
              for r in rows for k, scale in (("ttft", ttft), ("tpot", tpot))
              if r[f"measured_{k}_s"] is not None and r[f"{k}_raw"] > 0]
    return max(errors, default=0.0)


def _scale(factor: float) -> float:
    """A fitted factor as the scale inputs take it: two decimals, within their range."""
    return min(10.0, max(0.1, round(factor, 2)))


def compare(measured: Measured, setup: SetUp, isl: int, osl: int, spread: float,
            target: Target, ttft_scale: float, tpot_scale: float) -> dict[str, Any]:
    """Each point measured and predicted with its errors (`rows`), the fitted scales, the
    largest error before and after fitting, and whether the plan's scales are the fit."""
    check(setup)
    rows = []
    for row in measured.rows:
        lengths = ((row.isl, row.osl, BENCHMARK_SPREAD) if row.isl and row.osl else
                   (isl, osl, spread))
        ttft, tpot = predict(setup, row, *lengths, target, measured.statistic)
        rows.append({"load": row.load(), "isl": lengths[0], "osl": lengths[1],
                     "measured_ttft_s": row.ttft_s, "ttft_s": ttft * ttft_scale,
                     "ttft_error": _error(ttft * ttft_scale, row.ttft_s),
                     "measured_tpot_s": row.tpot_s, "tpot_s": tpot * tpot_scale,
                     "tpot_error": _error(tpot * tpot_scale, row.tpot_s),
                     "ttft_raw": ttft, "tpot_raw": tpot})
    scales = fit_scales([(r["ttft_raw"], r["measured_ttft_s"]) for r in rows
                         if r["measured_ttft_s"] is not None],
                        [(r["tpot_raw"], r["measured_tpot_s"]) for r in rows
                         if r["measured_tpot_s"] is not None])
    fitted = (_scale(scales.ttft_scale), _scale(scales.tpot_scale))
    return {"rows": [{k: v for k, v in r.items() if not k.endswith("_raw")} for r in rows],
            "fitted": fitted, "error": _largest(rows, ttft_scale, tpot_scale),
            "fitted_error": _largest(rows, *fitted),
            "is_fitted": fitted == (round(ttft_scale, 2), round(tpot_scale, 2))}
