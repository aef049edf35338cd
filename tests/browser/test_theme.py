"""The theme's reader-facing behaviour that Ridgepoint runs itself rather than through
Material's scripts (overrides/ and content/assets/), so that a page's load stays light:

- search: the index is fetched when the reader starts to search, not by every page load,
  and a query then returns results (overrides/partials/javascripts/search-on-demand.html);
- the light/dark toggle: the reader's scheme is on the page before its first paint, a
  switch holds on the next page, and the toggle works from the keyboard
  (overrides/partials/javascripts/palette.html);
- tooltips: a titled element (a glossary link: its title is the definition) shows its title
  on hover and on focus, as its description, and Escape hides it (content/assets/tooltips.js).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import READY_MS, Recorder, SearchParts

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test that uses the built site runs on each builder's (conftest)

EXPLAINER = "explainers/batching/"
LINKED = "explainers/chunked-prefill/"  # its prose links glossary terms
SIMS_SETTLED = '[data-sim]:not([data-state="ready"]):not([data-state="error"])'
VISIBLE_TOGGLE = "form[data-rp-palette] label:not([hidden])"
# The scheme <body> has when the browser runs the page's first animation frame callbacks,
# which come before its first paint.
FIRST_FRAME_SCHEME = """
requestAnimationFrame(() => {
  window.firstFrameScheme = document.body ? document.body.dataset.mdColorScheme : "no body";
});
"""


def index_requests(recorder: Recorder, search: SearchParts) -> list[str]:
    return [url for url in recorder.requests if url.split("?")[0].endswith(search.index)]


def wait_for_sims(page: Page) -> None:
    page.wait_for_function(f"() => !document.querySelector({json.dumps(SIMS_SETTLED)})",
                           timeout=READY_MS)


def test_a_page_load_leaves_the_search_index_until_the_reader_searches(
    page: Page, base_url: str, recorder: Recorder, search: SearchParts
) -> None:
    page.goto(base_url + EXPLAINER)
    wait_for_sims(page)  # long after the theme's scripts have started
    assert index_requests(recorder, search) == []
    page.keyboard.press("/")  # the theme's shortcut: focuses the box, or opens the dialog
    expect(page.locator(search.query)).to_be_focused()
    page.keyboard.type("continuous batching")
    expect(page.locator(search.result).first).to_be_visible(timeout=15_000)
    expect(page.locator(search.result).filter(has=page.locator(f"a[href*='{EXPLAINER}']"))
           .or_(page.locator(f"{search.result}[href*='{EXPLAINER}']")).first).to_be_attached()
    assert len(index_requests(recorder, search)) == 1


def test_clicking_the_search_box_starts_search(
    page: Page, base_url: str, recorder: Recorder, search: SearchParts
) -> None:
    page.goto(base_url + "glossary/")
    assert index_requests(recorder, search) == []
    page.locator(search.box).click()
    expect(page.locator(search.query)).to_be_focused()
    page.keyboard.type("prefill")
    expect(page.locator(search.result).first).to_be_visible(timeout=15_000)
    assert len(index_requests(recorder, search)) == 1


def test_a_page_opened_from_a_result_highlights_the_query(page: Page, base_url: str) -> None:
    """Material's search.highlight marks the query on a page opened from a result (?h=);
    it needs the index at once."""
    page.goto(base_url + EXPLAINER + "?h=batch")
    expect(page.locator("article mark").first).to_be_visible(timeout=15_000)


@pytest.fixture
def fresh_scheme(page: Page, base_url: str) -> Iterator[Page]:
    """The page on the site with no stored scheme, before and after the test."""
    forget = "Object.keys(localStorage).filter(k => k.endsWith('__palette'))" \
             ".forEach(k => localStorage.removeItem(k))"
    page.goto(base_url + "404.html")
    page.evaluate(forget)
    yield page
    page.evaluate(forget)


@pytest.mark.parametrize(("preference", "scheme"), [("light", "default"), ("dark", "slate")])
def test_a_new_reader_gets_their_system_scheme_before_the_first_paint(
    fresh_scheme: Page, base_url: str, preference: str, scheme: str
) -> None:
    page = fresh_scheme
    page.emulate_media(color_scheme=preference)
    page.add_init_script(FIRST_FRAME_SCHEME)
    page.goto(base_url + EXPLAINER)
    page.wait_for_function("() => window.firstFrameScheme !== undefined")
    assert page.evaluate("window.firstFrameScheme") == scheme
    assert page.locator(VISIBLE_TOGGLE).count() == 1


def test_a_switch_holds_on_the_next_page_from_its_first_paint(
    fresh_scheme: Page, base_url: str
) -> None:
    page = fresh_scheme
    page.emulate_media(color_scheme="light")
    page.goto(base_url + EXPLAINER)
    page.locator(VISIBLE_TOGGLE).click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    expect(page.locator('meta[name="color-scheme"]')).to_have_attribute("content", "dark")
    page.add_init_script(FIRST_FRAME_SCHEME)
    page.goto(base_url + "glossary/")
    page.wait_for_function("() => window.firstFrameScheme !== undefined")
    assert page.evaluate("window.firstFrameScheme") == "slate"
    page.locator(VISIBLE_TOGGLE).click()  # and back
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")


def test_the_toggle_works_from_the_keyboard(fresh_scheme: Page, base_url: str) -> None:
    page = fresh_scheme
    page.emulate_media(color_scheme="light")
    page.goto(base_url + EXPLAINER)
    page.locator("form[data-rp-palette] input:checked").focus()
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")


def glossary_link(page: Page) -> tuple[Locator, str]:
    """The page's first glossary link (found by its address: its title comes and goes) and
    its definition."""
    first = page.locator("article a[href*='glossary/#'][title]").first
    href, definition = first.get_attribute("href"), first.get_attribute("title")
    assert href and definition
    return page.locator(f"article a[href='{href}']").first, definition


def test_a_glossary_link_shows_its_definition_on_hover(page: Page, base_url: str) -> None:
    page.goto(base_url + LINKED)
    link, definition = glossary_link(page)
    link.hover()
    tip = page.locator(".md-tooltip2--active[role=tooltip]")
    expect(tip).to_have_text(definition)
    tip_id = tip.get_attribute("id")
    assert link.get_attribute("aria-describedby") == tip_id
    assert link.get_attribute("title") is None  # the browser's own tooltip would double it
    page.mouse.move(0, page.viewport_size["height"] - 1)
    expect(page.locator(".md-tooltip2")).to_have_count(0)
    assert link.get_attribute("title") == definition
    assert link.get_attribute("aria-describedby") is None


def test_a_focused_glossary_link_shows_its_definition_until_escape(
    page: Page, base_url: str
) -> None:
    page.goto(base_url + LINKED)
    link, definition = glossary_link(page)
    link.focus()
    expect(page.locator(".md-tooltip2--active")).to_have_text(definition)
    page.keyboard.press("Escape")
    expect(page.locator(".md-tooltip2")).to_have_count(0)
    assert link.get_attribute("title") == definition
