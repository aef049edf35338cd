"""Engine profiles for the sims: content/catalogue/engines/ as ENGINES in catalogue_data.py.

The sims read plain literals in base units (seconds), so the files' microseconds per step
and milliseconds per request are converted here, once.
"""

from __future__ import annotations

from typing import Any

from ridgepoint.content.engine_records import Engine
from ridgepoint.content.model import Site


def engine_sims(engine: Engine) -> dict[str, Any]:
    """One engine as the sims' data module holds it."""
    return {
        "name": engine.name,
        "admission": engine.admission.value,
        "token_budget": engine.token_budget.value,
        "max_batch": engine.max_batch.value,
        "graph_max_batch": engine.cuda_graphs.value,
        "all_reduce": engine.all_reduce.value,
        "graph_overhead_s": engine.step_overhead.graph_us * 1e-6,
        "eager_overhead_s": engine.step_overhead.eager_us * 1e-6,
        "request_overhead_s": engine.request_overhead.ms * 1e-3,
        "accuracy": {item.metric: {name: [errors.points, errors.median, errors.p90]
                                   for name, errors in (("training", item.training),
                                                        ("held_out", item.held_out))
                                   if errors is not None}
                     for item in (engine.accuracy.metrics if engine.accuracy else ())},
    }


def engines_sims(site: Site) -> dict[str, Any]:
    """ENGINES, keys sorted."""
    return {key: engine_sims(site.engines[key]) for key in sorted(site.engines)}
