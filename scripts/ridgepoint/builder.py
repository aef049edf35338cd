"""A safe build: validate, stage, `mkdocs build --strict` into a temporary folder, finish
(the theme's invalid attributes, Content Security Policy, service worker release), swap.

site/ changes only when everything succeeded: a content error, or a runtime that cannot be
staged, stops before MkDocs runs (said in one message, never a traceback), a failed MkDocs
build leaves its temporary folder behind for nobody (it is removed), and the swap is two
renames. MkDocs runs as a subprocess, so this module does not import it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from ridgepoint.config import SiteConfig, load_mkdocs_yaml
from ridgepoint.csp import PolicyError, apply_policy
from ridgepoint.errors import ContentErrors
from ridgepoint.html_fixes import fix_pages
from ridgepoint.layout import Layout
from ridgepoint.offline import OfflineError, stamp_service_worker
from ridgepoint.runtime import StagingError
from ridgepoint.stage import stage_site


def derived_config(config_file: Path, stage_dir: Path, purpose: str, **settings: object) -> Path:
    """A config beside the staging tree that inherits `config_file` and points MkDocs at
    `stage_dir` (plus any `settings`, e.g. site_dir or hooks), so any tree can be staged
    anywhere without editing mkdocs.yml. `purpose` names the file, so a build run while
    `make serve` is running does not replace the server's config (MkDocs rereads it).
    MkDocs resolves theme.custom_dir against the file it loads, not the inherited one, so
    the derived config names that folder absolutely."""
    document = {"INHERIT": str(config_file.resolve()), "docs_dir": str(stage_dir), **settings}
    theme = load_mkdocs_yaml(config_file).get("theme")
    if isinstance(theme, dict) and "custom_dir" in theme:
        custom_dir = (config_file.parent / str(theme["custom_dir"])).resolve()
        document["theme"] = {"custom_dir": str(custom_dir)}
    path = stage_dir.parent / f"{stage_dir.name}.{purpose}.mkdocs.yml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def mkdocs_command(layout: Layout, *args: str) -> tuple[list[str], dict[str, str]]:
    """The MkDocs CLI of this interpreter, and its environment. The pipeline it imports
    (the serve hook, the Markdown extensions mkdocs.yml names) is the layout's own
    (scripts/ of its code), whichever tree's venv the interpreter belongs to."""
    path = os.pathsep.join(filter(None, (str(layout.scripts), os.environ.get("PYTHONPATH"))))
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": path}
    return [sys.executable, "-m", "mkdocs", *args], environment


def mkdocs(layout: Layout, *args: str) -> int:
    """Run the MkDocs CLI (mkdocs_command); its output goes to the terminal."""
    command, environment = mkdocs_command(layout, *args)
    return subprocess.run(command, env=environment).returncode


def _swap(new: Path, site_dir: Path) -> None:
    """Put `new` where `site_dir` is; the old site is removed only once the new one is in."""
    old = site_dir.with_name(f"{site_dir.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if site_dir.exists():
        site_dir.rename(old)
    new.rename(site_dir)
    shutil.rmtree(old, ignore_errors=True)


def _finish(site: Path) -> bool:
    """Work on the built HTML that any builder reading mkdocs.yml would leave to us: what
    the theme writes that HTML does not allow, the Content Security Policy into every page,
    then (over the final bytes) the service worker's release. False, with the reason
    printed, if the site cannot be shipped."""
    try:
        fix_pages(site)
        apply_policy(site)
        stamp_service_worker(site)
    except (PolicyError, OfflineError) as error:
        print(error, file=sys.stderr)
        return False
    return True


def build(
    layout: Layout,
    site_dir: Path | None = None,
    *,
    config_file: Path | None = None,
    stage_dir: Path | None = None,
) -> int:
    """Build the layout's content into `site_dir`; 0 on success, 1 on failure.

    Defaults: the layout's mkdocs.yml, its docs_dir for staging and the layout's site/.
    """
    config_file = config_file or layout.mkdocs_yml
    site_dir = (site_dir or layout.site).resolve()
    stage_dir = (stage_dir or SiteConfig.read(config_file).docs_dir).resolve()
    try:
        stage_site(layout, config_file, stage_dir)
    except ContentErrors as errors:
        print(errors, file=sys.stderr)
        print(f"{len(errors.errors)} content error(s); {site_dir} left as it was.", file=sys.stderr)
        return 1
    except StagingError as error:
        print(f"cannot stage the browser runtime: {error}", file=sys.stderr)
        print(f"{site_dir} left as it was.", file=sys.stderr)
        return 1
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}.new-", dir=site_dir.parent))
    try:
        config = derived_config(config_file, stage_dir, "build", site_dir=str(fresh))
        if mkdocs(layout, "build", "--strict", "--config-file", str(config)) != 0:
            print(f"mkdocs build failed; {site_dir} left as it was.", file=sys.stderr)
            return 1
        if not _finish(fresh):
            print(f"{site_dir} left as it was.", file=sys.stderr)
            return 1
        _swap(fresh, site_dir)
    finally:
        if fresh.exists():
            shutil.rmtree(fresh)
    return 0
