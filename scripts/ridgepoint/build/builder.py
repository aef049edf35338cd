"""A safe build: validate, stage, build with the chosen builder (MkDocs or Zensical, one
adapter each: ridgepoint.adapters) into a temporary folder, finish (the theme's invalid
attributes and script bundle, Content Security Policy, service worker release), swap.

site/ changes only when everything succeeded: a content error, or a runtime that cannot be
staged, stops before the builder runs (said in one message, never a traceback), a failed
build leaves its temporary folder behind for nobody (it is removed), and the swap is two
renames. The builder runs as a subprocess, so this module imports neither.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from ridgepoint import adapters
from ridgepoint.adapters import Adapter
from ridgepoint.base.config import SiteConfig
from ridgepoint.finishing.csp import PolicyError, apply_policy
from ridgepoint.base.errors import ContentErrors
from ridgepoint.finishing.html_fixes import fix_pages
from ridgepoint.base.layout import Layout
from ridgepoint.finishing.offline import OfflineError, stamp_service_worker
from ridgepoint.browser.runtime import StagingError
from ridgepoint.staging.stage import stage_site
from ridgepoint.finishing.theme_bundle import BundleError, hint_theme_bundle


def _swap(new: Path, site_dir: Path) -> None:
    """Put `new` where `site_dir` is; the old site is removed only once the new one is in."""
    old = site_dir.with_name(f"{site_dir.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if site_dir.exists():
        site_dir.rename(old)
    new.rename(site_dir)
    shutil.rmtree(old, ignore_errors=True)


def _finish(site: Path, adapter: Adapter, scans: Path) -> bool:
    """Work on the built HTML that any builder reading mkdocs.yml would leave to us: what
    the theme writes that HTML does not allow, the Content Security Policy into every page
    (allowing the styles the theme's scripts add; each page's scan kept in `scans` for the
    next build), the compile hint on the theme's bundle,
    then (over the final bytes) the service worker's release, keeping the theme's search
    index from the start. The adapter says only where those two are; nothing here depends
    on which builder ran. False, with the reason printed, if the site cannot be shipped."""
    try:
        fix_pages(site)
        apply_policy(site, adapter.runtime_styles(site), scans)
        hint_theme_bundle(site)
        stamp_service_worker(site, kept_files=(adapter.search_index,))
    except (PolicyError, OfflineError, BundleError) as error:
        print(error, file=sys.stderr)
        return False
    return True


def build(
    layout: Layout,
    site_dir: Path | None = None,
    *,
    config_file: Path | None = None,
    stage_dir: Path | None = None,
    builder: str = adapters.DEFAULT,
) -> int:
    """Build the layout's content into `site_dir` with `builder` (ridgepoint.adapters);
    0 on success, 1 on failure.

    Defaults: the layout's mkdocs.yml, its docs_dir for staging and the layout's site/.
    """
    adapter = adapters.named(builder)
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
        if not adapter.build(layout, config_file, stage_dir, fresh):
            print(f"{site_dir} left as it was.", file=sys.stderr)
            return 1
        if not _finish(fresh, adapter, layout.csp_scans):
            print(f"{site_dir} left as it was.", file=sys.stderr)
            return 1
        _swap(fresh, site_dir)
    finally:
        if fresh.exists():
            shutil.rmtree(fresh)
    return 0
