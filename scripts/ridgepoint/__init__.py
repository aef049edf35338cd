"""Ridgepoint's content pipeline: load and validate content, generate pages and feeds, stage
them for MkDocs. Nothing here imports MkDocs except the thin adapter `mkdocs_hooks`."""
