"""The static imports of a browser ES module, followed to the end, for `modulepreload`.

A module script's imports are only requested once the module itself has been fetched and
parsed, and theirs once they have: widget.js's graph is three levels deep, and each level
waits for the main thread, which is busy laying out the page. `<link rel="modulepreload">`
for every module of the graph lets the browser fetch (and parse) them all at once, as soon
as it reads the page. The graph is read from the scripts themselves, so that an import
added to widget.js is preloaded without anyone keeping a list.

Only relative static imports (`import ... from "./x.js"`, `export ... from "./x.js"`,
`import "./x.js"`) count: a dynamic `import()` is loaded when it is needed, on purpose.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

# A static import or re-export of a relative module, over as many lines as it takes. The
# site's scripts are our own, checked by tsc; their imports are at top level.
STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\b(?:[^;"'()]*?\bfrom)?\s*["'](\.{1,2}/[^"']+\.m?js)["']""",
    re.MULTILINE,
)


def static_imports(entry: Path) -> tuple[str, ...]:
    """Every module `entry` imports statically, directly or not, as paths relative to the
    folder of `entry` (POSIX), breadth first (the order the browser would discover them),
    each once, `entry` itself left out; none when there is no `entry` (a content tree
    without the site's scripts, as the tests' fixtures are). A missing import raises
    FileNotFoundError naming it."""
    if not entry.is_file():
        return ()
    base = entry.parent
    found: list[str] = []
    seen = {entry.name}
    queue = [entry.name]
    while queue:
        current = queue.pop(0)
        text = (base / current).read_text(encoding="utf-8")
        for target in STATIC_IMPORT.findall(text):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
            if path in seen:
                continue
            if not (base / path).is_file():
                raise FileNotFoundError(f"{base / current} imports {target}, which is not there")
            seen.add(path)
            found.append(path)
            queue.append(path)
    return tuple(found)
