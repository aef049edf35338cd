"""Ridgepoint's content pipeline, one package per stage of its flow.

    content/, glossary/, feed/ ─► content ─► pages, prose, sims, browser ─► staging
                                  (a Site)   (what a staged page holds)     (build/docs)
    staging ─► adapters (MkDocs or Zensical builds it) ─► finishing (policy, release) ─► site/

    build: those steps in order, swapped into site/ only if all succeed; serve: `make serve`.

Each package's docstring says its job and what it may import. From the bottom up:

- base: what every stage uses (layout, errors, URLs, escaping, atomic writes, caches'
  helpers); imports no other package of the pipeline.
- content: the content model (YAML and front matter loaded and validated into `Site`).
- sims: the sims as the build reads, executes and embeds them.
- catalogue: what is computed from the catalogue's records (units, sims' module, calibration).
- pages, prose, browser, editing: generated pages and feeds; content pages' Markdown; the
  browser runtime; editors' tools. Each independent of the others.
- staging: the staging tree. finishing: the pass over the built HTML. adapters: the
  builders. build and serve: the two ways to run it all.

Higher packages may import lower ones, never the reverse, and packages on one row do not
import each other: the contracts in pyproject.toml ([tool.importlinter]), checked by
`make test`. Nothing here imports MkDocs except the dev server's hook
(serve.mkdocs_hooks).
"""
