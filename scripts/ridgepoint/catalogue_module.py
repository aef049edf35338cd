"""The catalogue for the sims: `sims/catalogue_data.py`, written from content/catalogue/.

Sims are standard library only and run in the reader's browser, which has no YAML parser,
so they read the catalogue as a Python module of plain literals. It is generated here from
the YAML (the same records the catalogue page shows), committed so that a fresh clone and
Pyodide have it, written only when its bytes change (the sim-run cache and the Pyodide
snapshot hash the sims' files), and kept in sync by a test. `make check`, `make build` and
`make serve` call `sync_sims_module` before anything imports the sims.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ridgepoint.catalogue import CATALOGUE, read_catalogue
from ridgepoint.catalogue_records import Catalogue

MODULE = "sims/catalogue_data.py"
WIDTH = 100  # the linter's line length

HEADER = '''"""The catalogue of GPUs and models, for the sims. GENERATED: edit the YAML instead.

Written from content/catalogue/gpus/*.yaml and content/catalogue/models/*.yaml by
scripts/ridgepoint/catalogue_module.py whenever `make check`, `make build` or `make serve`
finds the YAML changed (tests/pipeline/test_catalogue_module.py keeps the two in sync).
GPU figures are in base units (FLOP/s, bytes, bytes/s), but for measured all-reduce times:
[GPUs, message bytes, milliseconds], as the YAML writes them. A model is its config.json
fields as written. Every figure's source is in the YAML and on the catalogue page.
"""

'''


def render(catalogue: Catalogue) -> str:
    """The module's text: a header, then GPUS and MODELS as literals, keys sorted."""
    gpus = {key: catalogue.gpus[key].sims for key in sorted(catalogue.gpus)}
    models = {key: catalogue.models[key].sims for key in sorted(catalogue.models)}
    body = "".join(f"{name} = {_literal(value, 0)}\n"
                   for name, value in (("GPUS", gpus), ("MODELS", models)))
    return HEADER + body


def _literal(value: Any, indent: int) -> str:
    """`value` as Python source: a mapping one key per line, a list on one line when it
    fits in WIDTH and one item per line when not, everything else as repr writes it."""
    inner = " " * (indent + 4)
    if isinstance(value, dict):
        items = "".join(f"{inner}{key!r}: {_literal(item, indent + 4)},\n"
                        for key, item in value.items())
        return "{\n" + items + " " * indent + "}" if value else "{}"
    if isinstance(value, list):
        flat = repr(value)
        if indent + len(flat) + 40 <= WIDTH or not value:  # room for the key before it
            return flat
        items = "".join(f"{inner}{_literal(item, indent + 4)},\n" for item in value)
        return "[\n" + items + " " * indent + "]"
    return repr(value)


def sync_sims_module(root: Path) -> bool:
    """Rewrite root/sims/catalogue_data.py if the catalogue under `root` changed it.

    True when it was written. Nothing is written for a tree without a catalogue or without
    sims, nor while the catalogue has problems: the loader reports those with the rest.
    """
    if not (root / CATALOGUE).is_dir() or not (root / "sims").is_dir():
        return False
    catalogue, errors = read_catalogue(root)
    if errors:
        return False
    text = render(catalogue)
    path = root / MODULE
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    partial = path.with_suffix(".py.tmp")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)  # atomic: a sim importing it never reads half a file
    return True
