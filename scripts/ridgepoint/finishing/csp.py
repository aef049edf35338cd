"""The Content Security Policy of the built site: a <meta> in every page, plus `_headers`.

Static hosts cannot be relied on to send headers, so every built page carries its policy as
`<meta http-equiv="Content-Security-Policy">`, placed before any script. Scripts are allowed
from the site itself and, inline, only by the SHA-256 of each inline script the page holds
(Material writes a few small ones into every page; their text depends on the page's depth,
so each page lists its own). Nothing may use eval or `new Function` (Vega runs with
vega-interpreter); compiling WebAssembly is allowed ('wasm-unsafe-eval'), which Pyodide needs.

The policy is applied to the HTML the builder produced, not inside a theme template: it
hashes exactly the scripts that ended up in the page, whichever builder that reads mkdocs.yml
wrote them, and needs no template that a new theme version or builder would not read.

A worker started from a URL takes its policy from the headers of its own script, not from
the page's <meta>; the page's workers therefore start from blob: URLs, which inherit the
page's policy on any host (overrides/partials/javascripts/host-policy.html; hence
worker-src blob:). `_headers` (the format of Netlify and Cloudflare Pages) repeats the policy
as a header for every file, with the union of all pages' hashes, adding what only a header
can carry (frame-ancestors) and covering the service worker, whose policy can come from
nowhere else; the browser tests' server sends it. The policy cannot allow what the page
does not need, so a page that would be broken by it (an inline event handler, a
`javascript:` URL, a `style` attribute) stops the build instead.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ridgepoint.base import starttags
from ridgepoint.base.atomic import write_atomic
from ridgepoint.base.starttags import REFUSED, TOKEN, parse_attributes, refused, suspect

# Every directive that does not fall back to default-src, or must be stricter or looser.
# style-src needs no 'unsafe-inline': the pages have no style attributes (checked below),
# and Material and Vega style elements through the CSSOM, which the policy does not govern.
# img-src allows data: for the icons Material's stylesheet embeds as data: URLs. worker-src
# allows blob: because every worker starts from a blob: URL that imports its script, so that
# it inherits this policy on hosts that send no headers
# (overrides/partials/javascripts/host-policy.html).
BASE_DIRECTIVES: dict[str, tuple[str, ...]] = {
    "default-src": ("'self'",),
    "script-src": ("'self'", "'wasm-unsafe-eval'"),
    "worker-src": ("'self'", "blob:"),
    "style-src": ("'self'",),
    "img-src": ("'self'", "data:"),
    "object-src": ("'none'",),
    "base-uri": ("'self'",),
    "form-action": ("'self'",),
}
# Only meaningful as a header (a meta policy ignores it): no other site may frame the pages.
HEADER_ONLY = {"frame-ancestors": ("'none'",)}
HEADERS_FILE = "_headers"
JS_TYPES = {"", "module", "importmap", "text/javascript", "application/javascript",
            "text/ecmascript", "application/ecmascript"}
_CHARSET = re.compile(rb"<meta\s+charset=[\"']?utf-8[\"']?\s*/?>", re.IGNORECASE)
_HEAD = re.compile(rb"<head(\s[^>]*)?>", re.IGNORECASE)


class PolicyError(Exception):
    """A built page holds something the policy would refuse (it would fail for readers)."""


def source_hash(text: str) -> str:
    """The CSP source expression allowing an inline script or style with exactly `text`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


@dataclass
class _Inline:
    """What a page runs or styles inline, and what the policy would refuse in it."""

    scripts: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


# Script and style hold raw text up to their end tag (as a browser tokenizes it).
_RAW_TEXT_END = {
    name: re.compile(rf"</{name}[\s/>]", re.IGNORECASE) for name in ("script", "style")
}

def scan(html_text: str) -> _Inline:
    """The inline scripts (only those a browser would run) and style elements of a page,
    and what in its tags the policy would refuse."""
    found = _Inline()
    position = 0
    while match := TOKEN.search(html_text, position):
        position = match.end()
        tag, attribute_text = match.group(1), match.group(2)
        if tag is None:  # a comment
            continue
        tag = tag.lower()
        attributes = parse_attributes(attribute_text) if suspect(attribute_text.lower()) else None
        if attributes:
            found.refused += [construct if kind == "javascript" else
                              f"{construct}: {REFUSED[kind][0]}"
                              for construct, kind in refused(tag, attributes)]
        if tag not in _RAW_TEXT_END:
            continue
        end = _RAW_TEXT_END[tag].search(html_text, position)
        text = html_text[position : end.start() if end else len(html_text)]
        position = end.start() if end else len(html_text)
        named = dict(parse_attributes(attribute_text) if attributes is None else attributes)
        if tag == "style":
            found.styles.append(text)
        elif "src" not in named and (named.get("type") or "").strip().lower() in JS_TYPES:
            found.scripts.append(text)
    return found


def policy(script_hashes: list[str], style_hashes: list[str],
           extra: dict[str, tuple[str, ...]] | None = None) -> str:
    """The policy text: the base directives, these hashes, and any `extra` directives."""
    directives = {name: list(sources) for name, sources in BASE_DIRECTIVES.items()}
    directives["script-src"] += sorted(set(script_hashes))
    directives["style-src"] += sorted(set(style_hashes))
    for name, sources in (extra or {}).items():
        directives[name] = list(sources)
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def meta_tag(text: str) -> bytes:
    return f'<meta http-equiv="Content-Security-Policy" content="{text}">'.encode()


def _insert_meta(page: bytes, tag: bytes, where: Path) -> bytes:
    """The page with `tag` right after its charset declaration (which must stay within the
    first 1024 bytes), or at the start of <head>; before any script either way."""
    anchor = _CHARSET.search(page) or _HEAD.search(page)
    if anchor is None:
        raise PolicyError(f"{where}: no <head> to put the Content-Security-Policy in")
    first_script = page.lower().find(b"<script")
    if 0 <= first_script < anchor.end():
        raise PolicyError(f"{where}: a script comes before <head>; the policy would miss it")
    return page[: anchor.end()] + tag + page[anchor.end():]


class _Scans:
    """Each page's inline scripts' and styles' hashes and refused constructs, by the SHA-256
    of its bytes, kept in one file between builds: a rebuild writes mostly the same pages
    (for unchanged content, the same bytes as the build before), and scanning them was
    the largest part of a build's own work after MkDocs. The file is named by the scanner's
    source (this module and the start-tag rules it applies) and the Python running it
    (html.unescape), so it is never read for other code, and it keeps only the pages of the
    latest build."""

    CODE = hashlib.sha256(Path(__file__).read_bytes() + Path(starttags.__file__).read_bytes()
                          + sys.version.encode()).hexdigest()

    def __init__(self, file: Path | None) -> None:
        self.file = file
        self.known: dict[str, list[list[str]]] = {}
        self.seen: dict[str, list[list[str]]] = {}
        try:
            kept = json.loads(file.read_text(encoding="utf-8")) if file else {}
        except (OSError, ValueError):
            kept = {}
        if isinstance(kept, dict) and kept.get("code") == self.CODE:
            self.known = kept.get("pages", {})

    def of(self, page: bytes) -> list[list[str]]:
        """[script hashes, style hashes, refused constructs] of one page."""
        key = hashlib.sha256(page).hexdigest()
        if key not in self.seen:
            found = self.known.get(key)
            if found is None:
                inline = scan(page.decode("utf-8"))
                found = [[source_hash(text) for text in inline.scripts],
                         [source_hash(text) for text in inline.styles], inline.refused]
            self.seen[key] = found
        return self.seen[key]

    def keep(self) -> None:
        if self.file is not None and self.seen != self.known:
            write_atomic(self.file, json.dumps({"code": self.CODE, "pages": self.seen}))


def apply_policy(site_dir: Path, runtime_styles: tuple[str, ...] = (),
                 scans: Path | None = None) -> str:
    """Put a policy into every page under `site_dir` and write `_headers`; return the
    header policy (the union of every page's hashes). `runtime_styles` are the texts of
    <style> elements the theme's scripts add while any page runs (ridgepoint.adapters: a
    builder's search dialog): every page allows them by hash, never by 'unsafe-inline'.
    `scans` is the file keeping each page's scan between builds (`_Scans`).

    Raises PolicyError naming each page and construct the policy would refuse."""
    site_dir = Path(site_dir)
    added = [source_hash(text) for text in runtime_styles]
    all_scripts: set[str] = set()
    all_styles: set[str] = set(added)
    problems: list[str] = []
    kept = _Scans(scans)
    for path in sorted(site_dir.rglob("*.html")):
        page = path.read_bytes()
        if b'http-equiv="Content-Security-Policy"' in page:
            raise PolicyError(f"{path}: already has a Content-Security-Policy")
        scripts, page_styles, refused = kept.of(page)
        relative = path.relative_to(site_dir)
        problems += [f"{relative}: {what}" for what in refused]
        styles = page_styles + added
        all_scripts.update(scripts)
        all_styles.update(styles)
        path.write_bytes(_insert_meta(page, meta_tag(policy(scripts, styles)), relative))
    kept.keep()
    if problems:
        raise PolicyError(
            "the Content Security Policy would refuse these (use a stylesheet or a script "
            "file instead):\n" + "\n".join(problems)
        )
    header = policy(sorted(all_scripts), sorted(all_styles), HEADER_ONLY)
    (site_dir / HEADERS_FILE).write_text(
        "# The site's HTTP headers for hosts that read this file (Netlify, Cloudflare Pages);\n"
        "# every page also carries the policy as a <meta>. Written by ridgepoint.finishing.csp.\n"
        f"/*\n  Content-Security-Policy: {header}\n  X-Content-Type-Options: nosniff\n",
        encoding="utf-8",
    )
    return header
