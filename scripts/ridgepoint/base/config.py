"""What the pipeline needs from mkdocs.yml, read with PyYAML alone.

mkdocs.yml is the one place the site's address and staging folder are declared; reading it
here (not importing MkDocs) keeps page and feed generation independent of the builder (the
README's "The pipeline", Contracts: any builder that reads mkdocs.yml can build the staged
tree). The file may use MkDocs' `!ENV` tag, which we resolve the same way MkDocs
does, so `SITE_URL=... make build` changes feeds and pages alike.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_SITE_URL = "http://127.0.0.1:8000/"


class _ConfigLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """A safe loader (libyaml's when PyYAML has it) that understands MkDocs' `!ENV` tag and
    nothing more exotic."""


def _construct_env(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """`!ENV VAR` or `!ENV [VAR, OTHER, default]`: the first variable set, else the default.

    Mirrors pyyaml-env-tag (which MkDocs uses) closely enough for plain strings.
    """
    if isinstance(node, yaml.ScalarNode):
        names, default = [loader.construct_scalar(node)], None
    else:
        items = loader.construct_sequence(node)
        names, default = (items[:-1], items[-1]) if len(items) > 1 else (items, None)
    for name in names:
        if name in os.environ:
            return os.environ[name]
    return default


_ConfigLoader.add_constructor("!ENV", _construct_env)


def load_mkdocs_yaml(path: Path) -> dict[str, Any]:
    """The raw mapping of a mkdocs.yml, `!ENV` tags resolved."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_ConfigLoader) or {}


@dataclass(frozen=True)
class SiteConfig:
    """The few settings generation and staging depend on."""

    site_name: str
    site_description: str
    site_url: str
    docs_dir: Path

    @classmethod
    def read(cls, config_file: Path) -> SiteConfig:
        """Read mkdocs.yml; `docs_dir` is resolved against the file's folder as MkDocs does."""
        raw = load_mkdocs_yaml(config_file)
        url = str(raw.get("site_url") or DEFAULT_SITE_URL)
        return cls(
            site_name=str(raw["site_name"]),
            site_description=str(raw.get("site_description", "")),
            site_url=url if url.endswith("/") else url + "/",
            docs_dir=(config_file.parent / str(raw.get("docs_dir", "docs"))).resolve(),
        )
