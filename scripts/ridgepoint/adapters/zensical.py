"""The Zensical adapter: build the staged tree with Zensical (the successor of Material for
MkDocs, by its authors), which reads mkdocs.yml but ignores MkDocs hooks and plugins.

What it needs that MkDocs does not, all handled here:

- it has no --site-dir and refuses a docs_dir or site_dir outside the folder of its config
  file, so the derived config is written beside the staging tree (build/) with both folders
  under it, and the built site is moved to where the pipeline wants it;
- it writes a `.cache/` beside its config: build/.cache, ignored with the rest of build/;
- it reads plain YAML: mkdocs.yml's `!ENV` tags are resolved first (ridgepoint.base.config);
- it reads a relative link in a page's raw HTML from the page's source file, not from its
  URL as MkDocs does: a Markdown extension of ours puts them right first (zensical_links);
- `theme.variant: classic` gives Material's look (its own default is a new design);
- its search fetches `search.json` at the site root, in a worker its own bundle starts, and
  styles its dialog with a <style> element the bundle adds at run time, whose text is found
  in the built bundle (runtime_styles) so the policy can allow it by hash.

The dev server is ridgepoint.serve.zensical_serve.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from ridgepoint.adapters.process import environment
from ridgepoint.base.config import load_mkdocs_yaml
from ridgepoint.base.layout import Layout
from ridgepoint.finishing.theme_bundle import BundleError, the_bundle

SEARCH_INDEX = "search.json"
RAW_LINKS = "ridgepoint.adapters.zensical_links"  # raw HTML links as Zensical reads them
# The bundle appends `<style>` + a string constant's text to its search dialog's shadow
# root: `.appendChild(C("style",{},Tc.toString()))`, the constant defined as `var Tc='...'`.
_STYLE_USE = re.compile(r'\.appendChild\(\w+\("style",\{\},(\w+)\.toString\(\)\)\)')
_STRING = r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""


def derived_config(config_file: Path, stage_dir: Path, purpose: str, site_dir: str,
                   **settings: object) -> Path:
    """mkdocs.yml as Zensical must be given it, written beside `stage_dir` (whose folder is
    then the project root Zensical insists on): `site_dir` relative to that folder, the
    theme's overrides by absolute path, the classic look, the raw links' extension, and the
    search index's address for the search-on-demand script (overrides/partials/
    javascripts/search-on-demand.html). `purpose` names the file, so a build does not
    replace the dev server's config."""
    document = load_mkdocs_yaml(config_file)
    theme = dict(document.get("theme") or {})
    if "custom_dir" in theme:
        theme["custom_dir"] = str((config_file.parent / str(theme["custom_dir"])).resolve())
    theme["variant"] = "classic"
    extra = {**dict(document.get("extra") or {}), "search_index": SEARCH_INDEX}
    extensions = [*document.get("markdown_extensions", []), RAW_LINKS]
    document.update(docs_dir=stage_dir.name, site_dir=site_dir, theme=theme, extra=extra,
                    markdown_extensions=extensions, **settings)
    document.pop("hooks", None)  # ignored by Zensical; named here, they would only mislead
    path = stage_dir.parent / f"{stage_dir.name}.{purpose}.zensical.yml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def command(config: Path, *args: str) -> list[str]:
    """The Zensical CLI of this interpreter on `config`."""
    return [sys.executable, "-m", "zensical", *args, "--config-file", str(config)]


class Zensical:
    name = "zensical"
    search_index = SEARCH_INDEX

    def build(self, layout: Layout, config_file: Path, stage_dir: Path, out_dir: Path) -> bool:
        """`zensical build --strict` into a folder beside the staging tree, then moved into
        the empty `out_dir`; its output goes to the terminal."""
        work = Path(tempfile.mkdtemp(prefix=f"{stage_dir.name}.zensical-", dir=stage_dir.parent))
        try:
            config = derived_config(config_file, stage_dir, "build", work.name)
            done = subprocess.run(command(config, "build", "--strict"), cwd=stage_dir.parent,
                                  env=environment(layout))
            if done.returncode != 0:
                print("zensical build failed", file=sys.stderr)
                return False
            out_dir.rmdir()
            shutil.move(work, out_dir)
            return True
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def runtime_styles(self, site_dir: Path) -> tuple[str, ...]:
        """The search dialog's style text, read from the built bundle (it is a constant of
        the bundle: the same on every page). BundleError if the bundle no longer adds it
        that way: a Zensical upgrade must look again, not ship a refused style."""
        return bundle_styles(the_bundle(site_dir).read_text(encoding="utf-8"))


def bundle_styles(bundle: str) -> tuple[str, ...]:
    """Every style text the bundle appends as a <style> element (see _STYLE_USE)."""
    styles = []
    for name in dict.fromkeys(_STYLE_USE.findall(bundle)):
        found = re.search(rf"\b{re.escape(name)}={_STRING}", bundle)
        if found is None:
            raise BundleError(f"the theme's bundle uses the style {name} but never defines it")
        styles.append(str(ast.literal_eval(found.group(1))))  # JS and Python escapes agree
    if not styles:
        raise BundleError("the theme's bundle adds no <style> the way Zensical 0.0.73 did")
    return tuple(styles)


ADAPTER = Zensical()
