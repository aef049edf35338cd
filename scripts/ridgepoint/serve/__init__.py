"""`make serve`: each builder's dev server on the staging tree, re-staged on every save.

Stage: the dev server, the top of the pipeline beside ridgepoint.build. It may import every
other stage (staging to re-stage, adapters for each builder's config and search index,
editing for the editors' value sets); nothing imports it. What it adds to the served site
exists only here, never in a built one: the content-error banner (devserver, overlay/), a
whole search index, removed pages removed.
"""

from __future__ import annotations

from ridgepoint.base.layout import Layout


def serve(builder: str, layout: Layout, host: str, port: int) -> int:
    """Serve `layout` with the dev server of `builder` (a name ridgepoint.adapters knows);
    imported on demand, so serving with one builder never imports the other's."""
    if builder == "mkdocs":
        from ridgepoint.serve.mkdocs_serve import serve as run
    elif builder == "zensical":
        from ridgepoint.serve.zensical_serve import serve as run
    else:
        from ridgepoint.adapters import named

        named(builder)  # raises, naming the builders there are
        raise AssertionError(builder)
    return run(layout, host, port)
