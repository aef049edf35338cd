"""The builders run as subprocesses of the pipeline: the environment they run in.

Both builders import parts of the pipeline themselves (MkDocs the serve hook, both the
Markdown extensions mkdocs.yml names), so they must find the layout's own pipeline.
"""

from __future__ import annotations

import os

from ridgepoint.base.layout import Layout


def environment(layout: Layout) -> dict[str, str]:
    """The builder's environment: the pipeline it imports (the serve hook, the Markdown
    extensions mkdocs.yml names) is the layout's own (scripts/ of its code), whichever
    tree's venv the interpreter belongs to."""
    path = os.pathsep.join(filter(None, (str(layout.scripts), os.environ.get("PYTHONPATH"))))
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": path}
