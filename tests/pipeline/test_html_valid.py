"""Every built page is valid HTML: the Nu Html Checker (npm `vnu-jar`, run on the files)
reports nothing about any of them, but its Content Security Policy false positives.

The checker needs a Java runtime (Debian's default-jre-headless; .ci/run installs it).
It reads each page's <meta> policy and reports two kinds of warning that are not true of the
site, both filtered here and nothing else:

- "Inline script violates Content Security Policy": it does not match 'sha256-...'
  sources, and every inline script is allowed by its hash (tests/pipeline/test_csp_policy.py;
  tests/browser/test_csp.py sees no violation in Chromium);
- "Resource violates Content Security Policy" for a stylesheet or script of the site itself
  (a relative URL): checked as files, pages have file: URLs, which 'self' never matches. The
  same page checked over HTTP has no such warning; a resource from another host still fails.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VNU = REPO / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
INLINE_SCRIPT = re.compile(
    r"Inline script violates Content Security Policy \(meta tag\): blocked by “script-src” "
    r"directive \(missing “‘unsafe-inline’” or nonce/hash\)\.$")
OWN_RESOURCE = re.compile(
    r"Resource violates Content Security Policy \(meta tag\): external (?:script|stylesheet) "
    r"“(?![a-z][a-z0-9+.-]*:|//)[^”]*” blocked by “(?:script|style)-src” directive\.$")


def check(pages: list[Path]) -> list[dict[str, object]]:
    """Every message the checker gives about `pages`, in one run of the checker."""
    java = shutil.which("java")
    if java is None:
        pytest.fail("the Nu Html Checker needs Java: apt-get install default-jre-headless")
    assert VNU.is_file(), f"{VNU} is missing: run make setup"
    done = subprocess.run([java, "-jar", str(VNU), "--format", "json", *map(str, pages)],
                          capture_output=True, text=True, check=False)
    return json.loads(done.stderr)["messages"]


def false_positive(message: dict[str, object]) -> bool:
    """One of the two policy warnings the module docstring describes."""
    text = str(message.get("message", ""))
    return (message.get("type") == "info" and message.get("subType") == "warning"
            and bool(INLINE_SCRIPT.match(text) or OWN_RESOURCE.match(text)))


def readable(message: dict[str, object], site: Path) -> str:
    where = str(message.get("url", "")).removeprefix(f"file:{site}/")
    kind = message.get("subType") or message.get("type")
    return f"{where}:{message.get('lastLine')}: {kind}: {message.get('message')}"


def test_the_checker_finds_nothing_on_any_built_page(built_repo: Path) -> None:
    pages = sorted(built_repo.rglob("*.html"))
    assert len(pages) > 40  # every page kind: home, explainers, articles, hubs, listings, 404
    found = [readable(m, built_repo) for m in check(pages) if not false_positive(m)]
    assert not found, f"{len(found)} problem(s):\n" + "\n".join(found)


def test_the_checker_does_report_what_the_filter_lets_through(tmp_path: Path) -> None:
    """The filter passes only the two false positives: a real error, a heading that skips a
    level, an obsolete attribute and a script from another host are all still reported."""
    page = tmp_path / "page.html"
    page.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="script-src \'self\'">'
        '<title>t</title><script src="https://elsewhere.example/x.js"></script>'
        '<script src="own.js"></script><script>var inline = 1;</script></head><body>'
        '<h1>a</h1><h3>b</h3><a name="x">y</a>'
        '<input type="checkbox" autocomplete="off" aria-label="c"></body></html>',
        encoding="utf-8")
    messages = check([page])
    kept = [str(m["message"]) for m in messages if not false_positive(m)]
    dropped = [str(m["message"]) for m in messages if false_positive(m)]
    assert any("autocomplete" in text for text in kept)
    assert any("skipping 1 heading level" in text for text in kept)
    assert any("“name” attribute" in text for text in kept)
    assert any("elsewhere.example" in text for text in kept)
    assert len(dropped) == 2
    assert any(text.startswith("Inline script") for text in dropped)
    assert any("“own.js”" in text for text in dropped)
