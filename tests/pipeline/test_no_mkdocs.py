"""The pipeline imports nothing from MkDocs: only the hook (mkdocs_hooks) may.

Run in a fresh interpreter, since pytest's own process may have MkDocs loaded already.
"""

from __future__ import annotations

import subprocess
import sys

from tests.pipeline.conftest import SAMPLE, SITE_URL
from tests.repo import REPO

PROBE = f"""
import sys
from pathlib import Path
import ridgepoint.build.builder, ridgepoint.staging.stage, ridgepoint.pages.feeds, ridgepoint.pages
from ridgepoint.pages.feeds import generate_feeds
from ridgepoint.content.load import load_site
from ridgepoint.pages import generate_pages
from ridgepoint.sims.simcode import load
from ridgepoint.sims.simsource import SimSource

site = load_site(Path({str(SAMPLE)!r}))
code = load(SimSource.read(Path({str(REPO / "sims")!r})))
assert generate_pages(site, code) and generate_feeds(site, {SITE_URL!r}, "R", "D")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("mkdocs", "material"))
print(",".join(loaded))
"""


def test_generation_and_staging_do_not_import_mkdocs() -> None:
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"MkDocs modules loaded: {result.stdout}"
