"""The catalogue for the sims: `sims/physics/catalogue_data.py`, written from content/catalogue/.

Sims are standard library only and run in the reader's browser, which has no YAML parser,
so they read the catalogue as a Python module of plain literals. It is generated here from
the YAML (the same records the catalogue page shows), committed so that a fresh clone and
Pyodide have it, written only when its bytes change (the sim-run cache and the Pyodide
snapshot hash the sims' files), and kept in sync by a test. `make check`, `make build` and
`make serve` call `sync_sims_module` before they read the sims (ridgepoint.sims.simsource).
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import Any

from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.catalogue.profiles import engines_sims
from ridgepoint.catalogue.units import sims_data
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from ridgepoint.content.model import Site
from ridgepoint.content.parsememo import ParseMemo
from ridgepoint.sims.simsource import SimSource

MODULE = "physics/catalogue_data.py"  # in the sims package
SOURCES = ("gpus", "models", "kernels", "engines")  # the kinds it is written from
WIDTH = 100  # the linter's line length

HEADER = '''"""The catalogue of GPUs, models, kernels, engines for sims. GENERATED: edit the YAML.

Written from content/catalogue/{gpus,models,kernels,engines}/*.yaml by
scripts/ridgepoint/catalogue/sims_module.py whenever `make check`, `make build` or `make serve`
finds the YAML changed (tests/sims/test_catalogue_data.py keeps the two in sync).
GPU figures are in base units (FLOP/s, bytes, bytes/s); a kernel profile's constants are
shares and seconds, an engine's overheads seconds (the sources of each are in its YAML). A
model is its config.json fields as written. Every figure's source is in the YAML and on the
catalogue page.
"""

'''


def render(site: Site) -> str:
    """The module's text: a header, then GPUS and MODELS as literals, keys sorted."""
    gpus, models, kernels = sims_data(site)
    body = "".join(f"{name} = {_literal(value, 0)}\n"
                   for name, value in (("GPUS", gpus), ("MODELS", models), ("KERNELS", kernels),
                                       ("ENGINES", engines_sims(site))))
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
    if isinstance(value, str) and indent + len(repr(value)) + 40 > WIDTH:
        return "(\n" + "".join(f"{inner}{piece!r}\n" for piece in _pieces(value, indent + 4)) \
            + " " * indent + ")"
    return repr(value)


def _pieces(text: str, indent: int) -> list[str]:
    """A long string cut at spaces into pieces that fit in WIDTH (Python joins adjacent
    literals, so the module's value is the string whole)."""
    pieces, current = [], ""
    for word in re.findall(r"\S+\s*|\s+", text):
        if current and indent + len(repr(current + word)) > WIDTH:
            pieces.append(current)
            current = ""
        current += word
    return [*pieces, current]


def sync_sims_module(layout: Layout) -> bool:
    """Rewrite the sims' catalogue_data.py if the layout's catalogue changed it; True when
    it was written.

    Only for a whole repository, whose sims are its own: a fixture or synthetic content tree
    served by the repository's code must not rewrite the repository's sims. Nothing is
    written while the catalogue has problems either: the full load reports them with the
    rest of the content.
    """
    if layout.root != layout.code or not layout.sims.is_dir():
        return False
    try:
        site = load_site(layout.root, kinds=[kind for kind in KINDS if kind.name in SOURCES],
                         memo=ParseMemo(layout.parsed))
    except ContentErrors:
        return False
    text = render(site)
    path = layout.sims / MODULE
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    write_atomic(path, text)  # a sim importing it never reads half a file
    _reload_sims(layout)
    return True


def _reload_sims(layout: Layout) -> None:
    """Run again, in place, the sims modules this process imported itself (the catalogue
    and calibration pages read the physics' tables) that read the catalogue: the data
    module and whatever imports it, directly or not, each after those it imports. The
    sims the pages embed are executed from the bytes each build reads (ridgepoint.sims.simcode)
    and need none of this. Modules that do not read the catalogue are left alone, so
    classes others hold stay the same objects."""
    loaded = [name.removeprefix("sims.") for name in sys.modules if name.startswith("sims.")]
    if not loaded:
        return
    source = SimSource.read(layout.sims)
    closures = {}
    for name in loaded:
        try:
            closures[name] = source.closure(name)
        except (LookupError, ContentErrors):  # gone or broken: the load reports it
            continue
    stale = [name for name, files in closures.items() if MODULE in files]
    # A module's closure holds those of the modules it imports: the smaller first.
    for name in sorted(stale, key=lambda name: len(closures[name])):
        importlib.reload(sys.modules[f"sims.{name}"])
