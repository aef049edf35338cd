"""Accessibility of the real site in Chromium: axe-core on every kind of page in both colour
schemes, a text alternative for every chart, controls that are labelled, show their focus
and work from the keyboard, and no motion for readers who ask for less.

axe-core comes from npm (package-lock.json), so the rules are pinned like every other
dependency. It is evaluated into the page through the DevTools protocol, which the page's
Content Security Policy does not govern, and runs once the page's sims are live.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import sims
from ridgepoint.sims.display import display
from tests.browser.conftest import READY_MS
from tests.browser.sim_pages import wake_every_sim
from tests.repo import LAYOUT

pytestmark = pytest.mark.browser

AXE = LAYOUT.node_modules / "axe-core" / "axe.min.js"
KINDS = {
    "home": "",
    "hub": "feed/tags/latency/",
    "feed": "feed/",
    "glossary": "glossary/",
    "tag listing": "tags/latency/",
    "explainer": "explainers/chunked-prefill/",
    "article": "articles/prompt-caching/",
    "catalogue": "catalogue/",  # sortable tables (pages/tables.py), and the calculator
    "calibration": "calibration/",
    "404": "404.html",
}
SCHEMES = {"light": "default", "dark": "slate"}  # emulated preference -> Material's scheme
BLOCKING = ("serious", "critical")
SIMS_SETTLED = '[data-sim]:not([data-state="ready"]):not([data-state="error"])'


def open_page(page: Page, url: str) -> None:
    """Load a page and, when it has sims, wait until every one is live."""
    page.goto(url)
    if page.locator("[data-sim]").count():
        wake_every_sim(page)
        page.wait_for_function(
            f"() => !document.querySelector({json.dumps(SIMS_SETTLED)})", timeout=READY_MS
        )
        expect(page.locator('[data-sim]:not([data-state="ready"])')).to_have_count(0)


def axe_violations(page: Page) -> list[dict]:
    page.evaluate(AXE.read_text(encoding="utf-8"))
    return page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
            .map(v => ({ id: v.id, impact: v.impact, help: v.help,
                         nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ")) }))"""
    )


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("kind", KINDS)
def test_no_serious_or_critical_axe_violations(
    page: Page, base_url: str, kind: str, scheme: str
) -> None:
    # Material follows the preference until a scheme is stored, and stores the first it
    # picks: forget it, so that each scheme is the one a new reader with it would see.
    page.add_init_script("Object.keys(localStorage).filter(k => k.endsWith('__palette'))"
                         ".forEach(k => localStorage.removeItem(k))")
    page.emulate_media(color_scheme=scheme)
    open_page(page, base_url + KINDS[kind])
    assert page.get_attribute("body", "data-md-color-scheme") == SCHEMES[scheme]
    blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING]
    assert not blocking, "\n".join(
        f"{v['impact']} {v['id']}: {v['help']} at {v['nodes']}" for v in blocking
    )


class _Charts(HTMLParser):
    """Each chart SVG of a page: its attributes, and the text of its <title> and <desc>."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[dict[str, str]] = []
        self.ids: set[str] = set()
        self._in_figure = False
        self._text_of: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        self.ids.add(attributes.get("id", ""))
        if tag == "figure" and "sim-chart" in attributes.get("class", "").split():
            self._in_figure = True
        elif tag == "svg" and self._in_figure:
            self.charts.append({**attributes, "title": "", "desc": ""})
            self._in_figure = False
        elif tag in ("title", "desc") and self.charts and not self.charts[-1][tag]:
            self._text_of = tag

    def handle_endtag(self, tag: str) -> None:
        if tag in ("title", "desc"):
            self._text_of = None

    def handle_data(self, data: str) -> None:
        if self._text_of:
            self.charts[-1][self._text_of] += data


def test_every_prerendered_chart_has_a_title_and_a_description(built_site: Path) -> None:
    found = 0
    for file in sorted(built_site.rglob("*.html")):
        parser = _Charts()
        parser.feed(file.read_text(encoding="utf-8"))
        for chart in parser.charts:
            found += 1
            where = f"{file.relative_to(built_site)}: chart {chart.get('aria-labelledby')}"
            assert chart["role"] == "img", where
            assert chart["title"].strip() and chart["desc"].strip(), where
            assert set(chart["aria-labelledby"].split()) <= parser.ids, where
    assert found >= 10, "the site shows charts on its explainers"


# A live chart's canvas is an image named by its title and description, kept beside it in
# its container (charts.js describeChart) under the ids the prerendered SVG's had.
LIVE_LABELS = """canvas => [canvas.getAttribute("role"),
  ...canvas.getAttribute("aria-labelledby").split(" ").map(id => {
    const element = document.getElementById(id);
    return element && canvas.parentElement.contains(element)
      ? `${id.split("-").pop()}:${element.textContent}` : null;
  })]"""


def test_live_charts_keep_their_title_and_description(page: Page, base_url: str) -> None:
    open_page(page, base_url + "explainers/batching/")
    spec_titles = [(s["title"]["text"], s["description"])
                   for s in sims.load("batching").simulate(batch_size=6)["charts"]]
    page.fill("#sim-batching-batch_size + input.sim-value", "6")
    live = page.locator('[data-sim="batching"] .sim-chart-live canvas')
    expect(live).to_have_count(len(spec_titles))
    for index, (title, description) in enumerate(spec_titles):
        assert live.nth(index).evaluate(LIVE_LABELS) == [
            "img", f"title:{title}", f"desc:{description}"
        ]
    page.fill("#sim-batching-batch_size + input.sim-value", "7")  # a redraw keeps them
    expected = display(sims.load("batching").simulate(batch_size=7)["summary"]["static_steps"])
    expect(page.locator('[data-sim="batching"] tr[data-key="static_steps"] td')).to_have_text(
        expected
    )
    assert live.first.evaluate(LIVE_LABELS)[1] == f"title:{spec_titles[0][0]}"


# Links: the catalogue's; buttons: the take-away toolbar's.
CONTROLS = ".sim input, .sim select, .sim summary, .sim a[href], .sim button"
FOCUS_STYLE = """() => { const s = getComputedStyle(document.activeElement);
  return [s.outlineStyle, s.outlineWidth, s.boxShadow]; }"""


def test_every_control_is_labelled_and_shows_its_focus(page: Page, base_url: str) -> None:
    """Tab through a sim with sliders, text boxes, selects and a table toggle."""
    open_page(page, base_url + "explainers/prefix-cache/")
    # "More inputs" opened, so that its controls are reached too; the phone's bar is not
    # displayed at this width, so it is not a stop.
    page.eval_on_selector_all(".sim details.sim-more", "ds => ds.forEach(d => { d.open = true })")
    names = page.eval_on_selector_all(
        CONTROLS, "els => els.filter(e => e.checkVisibility()).map(e => [e.id || e.tagName,"
        " e.labels?.length || 0, e.getAttribute('aria-label') || '', e.textContent.trim()])",
    )
    assert names
    unlabelled = [name for name, labels, aria, text in names if not (labels or aria or text)]
    assert unlabelled == []
    page.evaluate(f"[...document.querySelectorAll({json.dumps(CONTROLS)})]"
                  ".find(e => e.checkVisibility()).focus()")
    page.keyboard.press("Shift+Tab")  # then reach every control by keyboard
    seen: list[str] = []
    for _ in range(len(names)):
        page.keyboard.press("Tab")
        inside = page.evaluate(f"document.activeElement.matches({json.dumps(CONTROLS)})")
        assert inside, "Tab left the sim before reaching every control"
        style, width, shadow = page.evaluate(FOCUS_STYLE)
        label = page.evaluate("document.activeElement.id || document.activeElement.tagName")
        assert (style != "none" and width != "0px") or shadow != "none", f"{label}: no focus"
        seen.append(label)
    assert len(seen) == len(names)


def test_a_choice_and_the_table_work_from_the_keyboard(page: Page, base_url: str) -> None:
    open_page(page, base_url + "explainers/chunked-prefill/")
    select = page.locator("#sim-chunked_prefill-gpu")
    select.focus()
    before = select.input_value()
    page.keyboard.press("ArrowUp")  # H200 to H100 (the L40S below has no NVLink for tp 2)
    after = select.input_value()
    assert after != before
    module = sims.load("chunked_prefill")
    summary = module.simulate(gpu=after)["summary"]
    expect(page.locator('[data-sim="chunked_prefill"] table.sim-summary td')).to_have_text(
        [display(value) for value in summary.values()], timeout=15_000
    )
    page.goto(base_url + "explainers/prefix-cache/")
    details = page.locator('[data-sim="prefix_cache"] details.sim-table')
    details.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(details).to_have_attribute("open", "")


# Every rule of our stylesheets that moves something; under reduced motion, none may.
MOTION = """() => {
  const ours = [...document.styleSheets]
    .filter(s => /assets\\/(site|sim\\/sim)\\.css$/.test(s.href || ""));
  const moving = [];
  const walk = rules => { for (const rule of rules) {
    if (rule.cssRules) walk(rule.cssRules);
    if (rule.style && (rule.style.transitionDuration || rule.style.animationName))
      moving.push(rule.selectorText);
  } };
  ours.forEach(sheet => walk(sheet.cssRules));
  const still = [];
  for (const element of document.querySelectorAll("*")) {
    const style = getComputedStyle(element);
    const seconds = `${style.transitionDuration},${style.animationDuration}`.split(",")
      .map(parseFloat).filter(Number.isFinite);
    if (moving.some(s => s && element.matches(s)) && seconds.some(t => t > 0))
      still.push(element.className || element.tagName);
  }
  return { sheets: ours.length, moving, still };
}"""


def test_motion_stops_for_readers_who_ask_for_less(page: Page, base_url: str) -> None:
    page.emulate_media(reduced_motion="reduce")
    open_page(page, base_url + "explainers/batching/")
    page.eval_on_selector(".sim-output", "o => { o.dataset.stale = 'true'; }")  # fades, else
    found = page.evaluate(MOTION)
    assert found["sheets"] == 2 and found["moving"], "our stylesheets and their motion"
    assert found["still"] == []
    page.emulate_media(reduced_motion="no-preference")
    assert page.evaluate(MOTION)["still"], "without the preference the fade is there"
