"""Finishing pass: what the theme writes into every page that HTML does not allow, where no
template can change it.

Material's base.html writes its two state toggles (the navigation drawer and the search
dialog) as `<input type="checkbox" ... autocomplete="off">` outside any template block, so an
override cannot reach them short of copying the whole frame. HTML allows `autocomplete` only on
text-like inputs (the Nu Html Checker reports an error on every page). Material sets it so that
Firefox does not restore a toggle's state on reload; nothing is lost without it, because
Material's bundle closes both toggles 125 ms after every page load anyway. Everything else the
checker found is fixed where it is written (overrides/, scripts/ridgepoint/pages/).
"""

from __future__ import annotations

import re
from pathlib import Path

# An <input> start tag of a type that must not carry autocomplete, and that attribute in it.
_TOGGLE = re.compile(rb"""<input\b[^>]*\btype=["']?(?:checkbox|radio)\b[^>]*>""", re.IGNORECASE)
_AUTOCOMPLETE = re.compile(rb"""\s+autocomplete=(?:"[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)


def without_toggle_autocomplete(page: bytes) -> bytes:
    """`page` with `autocomplete` removed from its checkboxes and radio buttons."""
    return _TOGGLE.sub(lambda tag: _AUTOCOMPLETE.sub(b"", tag.group(0)), page)


def fix_pages(site_dir: Path) -> int:
    """Apply the fixes to every page under `site_dir`; the number of pages changed."""
    changed = 0
    for path in sorted(Path(site_dir).rglob("*.html")):
        page = path.read_bytes()
        fixed = without_toggle_autocomplete(page)
        if fixed != page:
            path.write_bytes(fixed)
            changed += 1
    return changed
