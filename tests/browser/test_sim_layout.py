"""A sim's layout in Chromium, on the goodput explainer (19 inputs, five charts), on each
builder's site: at 1280 px its controls are a column beside the results that stays in view
while the charts scroll, the summary on top, over the table of contents (hidden meanwhile);
at 390 px they fold into a bar that stays
reachable and opens; the inputs the page talks about come first and the rest wait under
"More inputs"; axe finds nothing serious in either layout and scheme."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import READY_MS
from tests.browser.test_a11y import BLOCKING, SCHEMES, axe_violations

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test that uses the built site runs on each builder's (conftest)

PATH = "explainers/goodput/"
SIM = '[data-sim="goodput"]'
FORM = f'{SIM} [data-sim-part="controls"]'
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
BOX = """el => { const r = el.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width}; }"""
TO_THE_TOP = """sim => window.scrollTo(0, sim.getBoundingClientRect().top + window.scrollY - 100)"""


def box(page: Page, selector: str) -> dict[str, float]:
    return page.eval_on_selector(selector, BOX)


def open_at(page: Page, base_url: str, size: dict[str, int], query: str = "") -> None:
    page.set_viewport_size(size)
    page.goto(base_url + PATH + query)
    page.locator(SIM).scroll_into_view_if_needed()
    page.wait_for_selector(f'{SIM}[data-state="ready"]', timeout=READY_MS)
    page.eval_on_selector(SIM, TO_THE_TOP)  # the sim's top 100 px under the window's


def config(page: Page) -> dict:
    return json.loads(page.text_content(f'{SIM} [data-sim-part="config"]'))


def last_chart(page: Page) -> str:
    count = page.locator(f"{SIM} figure.sim-chart").count()
    return f'{SIM} [data-sim-part="chart"][data-chart="{count - 1}"]'


def test_wide_controls_sit_beside_the_results_and_stay_in_view(page: Page, base_url: str) -> None:
    open_at(page, base_url, WIDE)
    controls, output = box(page, FORM), box(page, f'{SIM} [data-sim-part="output"]')
    assert controls["right"] <= output["left"], (controls, output)
    assert abs(controls["top"] - output["top"]) < 40
    # The sim reaches over the table of contents' column; the prose keeps its width.
    sim, prose = box(page, SIM), box(page, ".md-content__inner > p")
    assert sim["width"] > prose["width"] + 150, (sim, prose)
    assert prose["right"] <= box(page, ".md-sidebar--secondary")["left"] + 1
    assert sim["right"] <= WIDE["width"]
    # The summary on top of the charts.
    summary = box(page, f"{SIM} table.sim-summary")
    assert summary["top"] < box(page, f"{SIM} figure.sim-chart")["top"]
    # Scrolled to the last chart: the controls are still beside it, in view under the header.
    page.locator(last_chart(page)).scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    header = box(page, ".md-header")["bottom"]
    now = box(page, FORM)
    assert header <= now["top"] < header + 40, (header, now)
    assert page.eval_on_selector(FORM, "el => getComputedStyle(el).position") == "sticky"
    expect(page.locator(f"{FORM} .sim-fold-button")).to_be_hidden()
    rate = page.locator("#sim-goodput-request_rate + input.sim-value")
    expect(rate).to_be_in_viewport()
    # The table of contents the sim covers is hidden (no link under it to Tab to) until the
    # sim has scrolled by.
    toc = page.locator(".md-sidebar--secondary .md-nav--secondary")
    expect(toc).to_be_hidden()
    page.evaluate("window.scrollTo(0, 0)")
    expect(toc).to_be_visible()


def test_on_a_phone_the_controls_fold_into_a_bar_that_stays_reachable(
    page: Page, base_url: str
) -> None:
    open_at(page, base_url, PHONE)
    button = page.locator(f"{FORM} .sim-fold-button")
    rate = page.locator("#sim-goodput-request_rate + input.sim-value")
    expect(button).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(rate).to_be_hidden()
    expect(page.locator(f"{FORM} .sim-fold-values")).to_contain_text("Arrival rate 10 requests/s")
    # The charts scroll under it, and it stays at the top of the screen.
    page.locator(last_chart(page)).scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    expect(button).to_be_in_viewport()
    assert box(page, f"{FORM} .sim-fold-button")["top"] < 120
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(rate).to_be_visible()
    expect(rate).to_be_in_viewport()
    rate.fill("12")
    expect(page.locator(f"{FORM} .sim-fold-values")).to_contain_text("Arrival rate 12 requests/s")
    rate.press("Escape")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(button).to_be_focused()
    expect(rate).to_be_hidden()


def test_the_inputs_the_page_talks_about_come_first_and_the_rest_under_more_inputs(
    page: Page, base_url: str
) -> None:
    open_at(page, base_url, WIDE)
    first = config(page)["first"]
    assert first and len(first) < len(config(page)["show"])
    outside = page.eval_on_selector_all(
        f'{FORM} [data-sim-part="control"]:not([data-sim-part="more"] *)',
        "boxes => boxes.map(b => b.dataset.input)")
    assert outside == first
    more = page.locator(f'{SIM} details[data-sim-part="more"]')
    rest = len(config(page)["show"]) - len(first)
    expect(more.locator("summary")).to_have_text(f"More inputs ({rest})")
    assert more.evaluate("d => d.open") is False
    seed = page.locator("#sim-goodput-seed + input.sim-value")
    expect(seed).to_be_hidden()
    more.locator("summary").click()
    expect(seed).to_be_visible()
    # A link that sets one of them opens the disclosure, so the reader sees it.
    open_at(page, base_url, WIDE, "?goodput.seed=3")
    assert page.locator(f'{SIM} details[data-sim-part="more"]').evaluate("d => d.open") is True
    expect(seed).to_have_value("3")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("size", ["wide", "phone"])
def test_both_layouts_are_axe_clean_in_both_schemes(
    page: Page, base_url: str, scheme: str, size: str
) -> None:
    page.add_init_script("Object.keys(localStorage).filter(k => k.endsWith('__palette'))"
                         ".forEach(k => localStorage.removeItem(k))")
    page.emulate_media(color_scheme=scheme)
    open_at(page, base_url, WIDE if size == "wide" else PHONE)
    if size == "phone":
        page.locator(f"{FORM} .sim-fold-button").click()
    page.get_by_role("button", name="Pin this run").click()
    expect(page.locator(f"{SIM} td.sim-delta").first).to_be_visible()
    blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING]
    assert not blocking, "\n".join(
        f"{v['impact']} {v['id']}: {v['help']} at {v['nodes']}" for v in blocking
    )
