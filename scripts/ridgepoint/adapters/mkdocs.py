"""The MkDocs adapter: `mkdocs build --strict` on the staged tree (its dev server, `mkdocs
serve --dirty` with the serve hook, is ridgepoint.serve.mkdocs_serve). MkDocs runs as a
subprocess, so the pipeline imports nothing of it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from ridgepoint.adapters.process import environment
from ridgepoint.base.config import load_mkdocs_yaml
from ridgepoint.base.layout import Layout

SEARCH_INDEX = "search/search_index.json"  # Material's search plugin


def derived_config(config_file: Path, stage_dir: Path, purpose: str, **settings: object) -> Path:
    """A config beside the staging tree that inherits `config_file` and points MkDocs at
    `stage_dir` (plus any `settings`, e.g. site_dir or hooks), so any tree can be staged
    anywhere without editing mkdocs.yml. `purpose` names the file, so a build run while
    `make serve` is running does not replace the server's config (MkDocs rereads it).
    MkDocs resolves theme.custom_dir against the file it loads, not the inherited one, so
    the derived config names that folder absolutely. The search index's address goes to the
    search-on-demand script (overrides/partials/javascripts/search-on-demand.html)."""
    document = {"INHERIT": str(config_file.resolve()), "docs_dir": str(stage_dir),
                "extra": {"search_index": SEARCH_INDEX}, **settings}
    theme = load_mkdocs_yaml(config_file).get("theme")
    if isinstance(theme, dict) and "custom_dir" in theme:
        custom_dir = (config_file.parent / str(theme["custom_dir"])).resolve()
        document["theme"] = {"custom_dir": str(custom_dir)}
    path = stage_dir.parent / f"{stage_dir.name}.{purpose}.mkdocs.yml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def mkdocs_command(layout: Layout, *args: str) -> tuple[list[str], dict[str, str]]:
    """The MkDocs CLI of this interpreter, and its environment (adapters.process)."""
    return [sys.executable, "-m", "mkdocs", *args], environment(layout)


def mkdocs(layout: Layout, *args: str) -> int:
    """Run the MkDocs CLI (mkdocs_command); its output goes to the terminal."""
    command, variables = mkdocs_command(layout, *args)
    return subprocess.run(command, env=variables).returncode


class MkDocs:
    name = "mkdocs"
    search_index = SEARCH_INDEX

    def build(self, layout: Layout, config_file: Path, stage_dir: Path, out_dir: Path) -> bool:
        config = derived_config(config_file, stage_dir, "build", site_dir=str(out_dir))
        if mkdocs(layout, "build", "--strict", "--config-file", str(config)) != 0:
            print("mkdocs build failed", file=sys.stderr)
            return False
        return True

    def runtime_styles(self, site_dir: Path) -> tuple[str, ...]:
        """None: Material styles its elements through the CSSOM, which the policy allows."""
        return ()


ADAPTER = MkDocs()
