"""Python only when wanted: no Python byte before a sim nears the viewport or the reader
reaches for its controls; under Save-Data, only on reaching (content/assets/sim/wanted.js).

The article used has its sim more than two screens below its top, so a reader of its first
screen is not near it: Python's worker, Pyodide, its snapshot and the sims' files must all
wait. Every check is on the requests the page made and the sim's data-state.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import READY_MS, Recorder
from tests.browser.sim_pages import SIM_ARTICLE

pytestmark = pytest.mark.browser

SIM = '[data-sim="prefix_cache"]'
PYTHON = ("/assets/sim/worker.js", "/assets/sim/pyodide_start.js", "/assets/pyodide/",
          "/assets/sims/")
QUIET_MS = 1500  # long after the page's own start-up: a lazy start would have begun by then
SAVE_DATA = """Object.defineProperty(Navigator.prototype, "connection", {
  get: () => ({ saveData: true }), configurable: true });"""


def python_requests(recorder: Recorder) -> list[str]:
    return [url for url in recorder.requests if any(path in url for path in PYTHON)]


def open_far_from_the_sim(page: Page, url: str) -> None:
    """Open the article at its top and let it settle; its sim must be over two screens
    down (else this test would prove nothing)."""
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(QUIET_MS)
    below = page.evaluate(f"document.querySelector('{SIM}').getBoundingClientRect().top"
                          " / innerHeight")
    assert below > 2, f"the sim is {below:.1f} screens down: pick an article with a lower sim"


def expect_untouched(page: Page, recorder: Recorder) -> None:
    assert python_requests(recorder) == []
    expect(page.locator(SIM)).to_have_attribute("data-state", "prerendered")


def expect_live(page: Page, recorder: Recorder) -> None:
    expect(page.locator(SIM)).to_have_attribute("data-state", "ready", timeout=READY_MS)
    requested = python_requests(recorder)
    assert any(url.endswith("/assets/sim/worker.js") for url in requested)
    assert any("/assets/pyodide/snapshot-" in url for url in requested)


def test_no_python_is_requested_until_the_sim_comes_within_a_screen_and_then_it_goes_live(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    open_far_from_the_sim(page, base_url + SIM_ARTICLE)
    expect_untouched(page, recorder)
    # Scrolled to just under two screens above the sim: still out of view, but near.
    page.evaluate(f"""() => {{
        const top = document.querySelector('{SIM}').getBoundingClientRect().top + scrollY;
        scrollTo(0, top - 1.8 * innerHeight);
    }}""")
    assert page.evaluate(f"document.querySelector('{SIM}').getBoundingClientRect().top"
                         " > innerHeight")
    expect_live(page, recorder)


def test_under_save_data_scrolling_to_the_sim_requests_no_python(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    page.add_init_script(SAVE_DATA)
    open_far_from_the_sim(page, base_url + SIM_ARTICLE)
    page.locator(SIM).scroll_into_view_if_needed()
    page.wait_for_timeout(QUIET_MS)
    expect_untouched(page, recorder)
    page.locator(f"{SIM} form.sim-controls").hover()
    expect_live(page, recorder)


REACHES: dict[str, Callable[[Locator], None]] = {
    "a pointer over a control": lambda control: control.hover(),
    "a press on a control": lambda control: control.dispatch_event("pointerdown"),
    "keyboard focus on a control": lambda control: control.focus(),
}


@pytest.mark.parametrize("reach", REACHES)
def test_reaching_for_a_control_starts_python_even_under_save_data(
    page: Page, base_url: str, recorder: Recorder, reach: str
) -> None:
    page.add_init_script(SAVE_DATA)
    open_far_from_the_sim(page, base_url + SIM_ARTICLE)
    expect_untouched(page, recorder)
    REACHES[reach](page.locator(f"{SIM} input.sim-value").first)
    expect_live(page, recorder)
