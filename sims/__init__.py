"""Ridgepoint's simulations: pure-Python, standard-library-only models of LLM serving.

Each sim is a module here that declares `TITLE`, `INPUTS` (see `sims.kit.contract`) and a
`simulate(**inputs) -> dict`. The same files run under pytest, from the command line
(`python -m sims`), and in the reader's browser under Pyodide. Modules without `INPUTS`
(the contract, the shared physics, the chart helpers) are infrastructure, not sims.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def sim_names() -> list[str]:
    """Every sim module in this package, by module name, sorted."""
    names = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "INPUTS") and hasattr(module, "simulate"):
            names.append(info.name)
    return sorted(names)


def load(name: str) -> ModuleType:
    """Import a sim by module name, refusing infrastructure modules and unknown names."""
    if name not in sim_names():
        raise LookupError(f"no sim named {name!r} (sims: {', '.join(sim_names())})")
    return importlib.import_module(f"{__name__}.{name}")
