"""`make new KIND=<kind> SLUG=... [SIM=module]`: a new content file of any kind (a term, a reading,
a hub, an explainer, an article, a catalogue GPU, model, kernel profile or calibration set).

Writes the file with its modeline, every field with what belongs in it and its allowed
values, today's date where one is needed (ridgepoint.editing.scaffold); an explainer also gets its
sim. Refuses, in one line on stderr and with exit status 2, anything it cannot write.

`scripts/new.py model <slug> --from-config <config.json>` (`make model-from-config
CONFIG=... SLUG=...`) writes a model's file from its Hugging Face config.json instead, every
field the catalogue reads copied with the line it came from (ridgepoint.editing.from_config).
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import sims
from ridgepoint.base.layout import repository
from ridgepoint.editing import from_config
from ridgepoint.editing.scaffold import Refused, scaffold

USAGE = ("usage: make new KIND=<kind> SLUG=<slug> [SIM=<module>] (KIND: {kinds}), or make "
         "model-from-config CONFIG=<config.json> SLUG=<slug>")
FROM_CONFIG = "--from-config"


def main(argv: list[str]) -> int:
    from ridgepoint.content.kinds import KINDS

    if len(argv) == 4 and argv[0] == "model" and argv[2] == FROM_CONFIG:
        return _from_config(argv[1], Path(argv[3]))
    if len(argv) not in (2, 3) or not all(argv[:2]):
        print(USAGE.format(kinds="|".join(kind.key for kind in KINDS)), file=sys.stderr)
        return 2
    key, slug, sim = argv[0], argv[1], (argv[2] if len(argv) == 3 and argv[2] else None)
    try:
        written = scaffold(repository(), key, slug, date.today(), sims.sim_names(), sim)
    except Refused as refused:
        print(f"make new: {refused}", file=sys.stderr)
        return 2
    for path in written.paths:
        print(f"new: wrote {path}")
    print("next: fill in every empty field (`make check` names each one), then `make serve`")
    if written.sim:
        print(f"next: sims/{written.sim}.py is a working template: replace its model, then give "
              "it its invariants in tests/sims/test_properties.py (INVARIANTS)")
    return 0


def _from_config(slug: str, config: Path) -> int:
    try:
        path = from_config.write(repository(), slug, config)
    except Refused as refused:
        print(f"make model-from-config: {refused}", file=sys.stderr)
        return 2
    print(f"new: wrote {path}")
    print("next: fill in name and config_json (the config.json's title and URL at a fixed "
          "commit), and published if the model card gives parameter counts; then `make check`")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
