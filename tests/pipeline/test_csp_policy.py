"""The Content Security Policy the builder writes into every page (ridgepoint.finishing.csp)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ridgepoint import adapters
from ridgepoint.build.builder import _finish
from ridgepoint.finishing import csp
from ridgepoint.finishing.csp import BASE_DIRECTIVES, PolicyError, apply_policy, scan, source_hash

META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
PAGE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>t</title>
    <script>var inline = 1;</script>
    <script id="__config" type="application/json">{"not": "run"}</script>
  </head>
  <body><script src="x.js"></script><script type="module">import "./y.js";</script></body>
</html>
"""


def directives(policy: str) -> dict[str, list[str]]:
    return {name: sources for name, *sources in (d.split() for d in policy.split("; "))}


def write(site: Path, name: str, text: str) -> Path:
    path = site / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_hash_is_the_one_browsers_compute() -> None:
    # The example in MDN's CSP script-src reference.
    assert source_hash("var inline = 1;") == "'sha256-B2yPHKaXnvFWtRChIbabYmUBFZdVfKKXHbWtWidDVF8='"


def test_only_executable_inline_scripts_are_hashed() -> None:
    found = scan(PAGE)
    assert found.scripts == ["var inline = 1;", 'import "./y.js";']
    assert found.refused == []


def test_the_scanner_reads_tags_as_a_browser_does() -> None:
    page = """<!doctype html><html><head><meta charset="utf-8">
    <!-- <script>commented()</script> <p style="x"> -->
    <SCRIPT Type="Module">a("</p>", '<b>')</SCRIPT >
    <script data-x='a>b' type="application/ld+json">{"x": 1}</script>
    <script>if (a < b) c();</script><style>p { color: red }</style></head>
    <body><p title="go on > now" class=button data-one="onclick">text on and &amp; style</p>
    <svg><style>.s { fill: none }</style><path d="M0 0"/></svg>
    <a href="  JaVaScRiPt:go()">a</a><a href="&#106;avascript:go()">b</a>
    <div/onclick="x()"></div><button ONCLICK>c</button><i STYLE="">d</i>
    <a href="/only/javascript-notes/">e</a></body></html>"""
    found = scan(page)
    assert found.scripts == ['a("</p>", \'<b>\')', "if (a < b) c();"]
    assert found.styles == ["p { color: red }", ".s { fill: none }"]
    assert found.refused == [
        '<a href="javascript:...">', '<a href="javascript:...">',
        "<div onclick=...>: inline event handler", "<button onclick=...>: inline event handler",
        "<i style=...>: style attribute",
    ]


class FullParse(HTMLParser):
    """A reference for the scanner: Python's HTML parser, reporting the same things."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.refused: list[str] = []
        self._open: tuple[str, bool, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name.startswith("on"):
                self.refused.append(f"<{tag} {name}=...>: inline event handler")
            elif name == "style":
                self.refused.append(f"<{tag} style=...>: style attribute")
            elif (value or "").strip().lower().startswith("javascript:") and name in (
                "href", "src", "action", "formaction", "xlink:href"
            ):
                self.refused.append(f'<{tag} {name}="javascript:...">')
        named = dict(attrs)
        runs = "src" not in named and (named.get("type") or "") in ("", "module")
        if tag in ("script", "style"):
            self._open = (tag, tag == "style" or runs, [])

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[2].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[0]:
            if self._open[1]:
                (self.styles if tag == "style" else self.scripts).append("".join(self._open[2]))
            self._open = None


def test_the_scanner_finds_what_a_full_parse_finds_on_every_built_page(
    built_repo: Path, built_sample: Path
) -> None:
    pages = [*built_repo.rglob("*.html"), *built_sample.rglob("*.html")]
    assert len(pages) > 30
    for page in pages:
        text = page.read_text(encoding="utf-8")
        reference = FullParse()
        reference.feed(text)
        reference.close()
        found = scan(text)
        assert (found.scripts, found.styles, found.refused) == (
            reference.scripts, reference.styles, reference.refused), page
        assert found.scripts, page  # the theme's inline scripts, at least


def test_each_page_gets_its_own_hashes_before_any_script(tmp_path: Path) -> None:
    first = write(tmp_path, "index.html", PAGE)
    second = write(tmp_path, "b/index.html", PAGE.replace("var inline = 1;", "var other = 2;"))
    header = apply_policy(tmp_path)
    text = first.read_text(encoding="utf-8")
    policy = directives(META.search(text).group(1))
    assert policy["script-src"] == ["'self'", "'wasm-unsafe-eval'", *sorted(
        [source_hash("var inline = 1;"), source_hash('import "./y.js";')])]
    assert text.index("Content-Security-Policy") < text.index("<script")
    assert text.index('<meta charset="utf-8">') < text.index("Content-Security-Policy")
    assert source_hash("var other = 2;") in second.read_text(encoding="utf-8")
    assert source_hash("var other = 2;") not in text
    # The header (for workers and hosts that read _headers) allows every page's scripts.
    assert {source_hash("var inline = 1;"), source_hash("var other = 2;")} <= set(
        directives(header)["script-src"])
    assert directives(header)["frame-ancestors"] == ["'none'"]
    assert f"Content-Security-Policy: {header}\n" in (tmp_path / "_headers").read_text()


def _pages(site: Path) -> dict[str, str]:
    return {path.relative_to(site).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(site.rglob("*")) if path.is_file()}


def _scanned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts scanned from now on."""
    texts: list[str] = []
    real = csp.scan

    def counting(text: str) -> csp._Inline:
        texts.append(text)
        return real(text)

    monkeypatch.setattr(csp, "scan", counting)
    return texts


def test_a_rebuild_reads_unchanged_pages_scans_from_the_last_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans = tmp_path / "scans.json"

    def site(name: str, second_script: str) -> Path:
        write(tmp_path / name, "index.html", PAGE)
        write(tmp_path / name, "b/index.html", PAGE.replace("var inline = 1;", second_script))
        return tmp_path / name

    apply_policy(site("unkept", "var other = 2;"))
    apply_policy(site("first", "var other = 2;"), scans=scans)
    assert _pages(tmp_path / "first") == _pages(tmp_path / "unkept")
    scanned = _scanned(monkeypatch)
    apply_policy(site("again", "var other = 2;"), scans=scans)  # the same pages, rebuilt
    assert _pages(tmp_path / "again") == _pages(tmp_path / "unkept") and scanned == []

    apply_policy(site("edited", "var edited = 3;"), scans=scans)
    assert len(scanned) == 1 and "var edited = 3;" in scanned[0]
    assert source_hash("var edited = 3;") in (tmp_path / "edited/b/index.html").read_text()
    assert len(json.loads(scans.read_text())["pages"]) == 2  # this build's pages only

    scanned.clear()
    monkeypatch.setattr(csp._Scans, "CODE", "another scanner")
    apply_policy(site("other-code", "var edited = 3;"), scans=scans)
    assert len(scanned) == 2


def test_a_kept_scan_still_refuses_what_the_policy_would_break(tmp_path: Path) -> None:
    scans = tmp_path / "scans.json"
    for name in ("first", "again"):
        with pytest.raises(PolicyError, match="a/index.html: <button onclick=...>"):
            apply_policy(broken_site(tmp_path / name), scans=scans)
    assert len(json.loads(scans.read_text())["pages"]) == 2


def test_the_policy_allows_nothing_unsafe_and_no_other_host() -> None:
    sources = [source for values in BASE_DIRECTIVES.values() for source in values]
    assert "'unsafe-inline'" not in sources and "'unsafe-eval'" not in sources
    assert not [s for s in sources if "://" in s or s in ("*", "http:", "https:")]
    # blob: starts workers only (they inherit this policy); a page's scripts never come from it.
    assert [name for name, values in BASE_DIRECTIVES.items() if "blob:" in values] == ["worker-src"]
    assert BASE_DIRECTIVES["default-src"] == ("'self'",)
    assert BASE_DIRECTIVES["object-src"] == ("'none'",)
    assert BASE_DIRECTIVES["base-uri"] == ("'self'",)


def broken_site(site: Path) -> Path:
    write(site, "a/index.html", PAGE.replace(
        "<body>", '<body><button onclick="go()">go</button><p style="color: red">x</p>'
                  '<a href="javascript:go()">go</a>'))
    write(site, "b/index.html", PAGE)
    return site


def test_styles_the_theme_adds_at_run_time_are_allowed_by_hash_on_every_page(
    tmp_path: Path
) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text(
            '<html><head><meta charset="utf-8"></head><body></body></html>', encoding="utf-8")
    header = apply_policy(tmp_path, runtime_styles=(".dialog{color:red}",))
    allowed = source_hash(".dialog{color:red}")
    assert allowed in header.split("style-src", 1)[1].split(";", 1)[0]
    for name in ("a", "b"):
        text = (tmp_path / name / "index.html").read_text(encoding="utf-8")
        assert allowed in text.split("style-src", 1)[1].split(";", 1)[0]
    assert "'unsafe-inline'" not in header


def test_what_the_policy_would_break_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as raised:
        apply_policy(broken_site(tmp_path))
    message = str(raised.value)
    for expected in ("a/index.html: <button onclick=...>: inline event handler",
                     "a/index.html: <p style=...>: style attribute",
                     'a/index.html: <a href="javascript:...">'):
        assert expected in message
    assert "b/index.html" not in message


def test_the_builder_does_not_ship_a_site_the_policy_would_break(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = broken_site(tmp_path / "site")
    assert _finish(site, adapters.named("mkdocs"), tmp_path / "scans.json") is False
    assert "inline event handler" in capsys.readouterr().err


def test_every_page_of_the_real_site_carries_its_policy(built_repo: Path) -> None:
    pages = sorted(built_repo.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        text = page.read_text(encoding="utf-8")
        metas = META.findall(text)
        assert len(metas) == 1, page
        head = text[: text.index("</head>")]
        assert head.index("Content-Security-Policy") < head.index("<script"), page
        policy = directives(metas[0])
        assert "'unsafe-inline'" not in policy["script-src"]
        assert "'unsafe-eval'" not in policy["script-src"]
        for script in scan(text).scripts:
            assert source_hash(script) in policy["script-src"], (page, script[:60])
    assert (built_repo / "_headers").is_file()
