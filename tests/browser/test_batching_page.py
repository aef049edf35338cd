"""The batching explainer in a real browser: results at once, Python a moment later, and
every change rerunning the same sim the native tests run."""

from __future__ import annotations

import html
import re
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import Locator, Page, Route, expect

import sims
from ridgepoint.sims.display import display
from tests.browser.conftest import READY_MS, Recorder
from tests.repo import LAYOUT

PATH = "explainers/batching/"
SIM = '[data-sim="batching"]'
BATCH = "#sim-batching-batch_size"  # the slider; its exact-value box follows it
BATCH_BOX = f"{BATCH} + input.sim-value"

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test that uses the built site runs on each builder's (conftest)

WIDGET = LAYOUT.content / "assets" / "sim" / "sim.js"  # the Sim class, its constants
# A live chart's pixels, to tell whether its picture changed.
PICTURE = "canvas => canvas.toDataURL()"
# How many of a live chart's pixels are drawn solidly in the chart's CSS colour (its titles',
# labels' and legends' text): a canvas keeps the colours it was drawn in.
INK_PIXELS = """canvas => {
  const [r, g, b, a = 1] = getComputedStyle(canvas).color.match(/[\\d.]+/g).map(Number);
  const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) <= 12
        && Math.abs(data[i + 3] - a * 255) <= 8) count += 1;
  }
  return count;
}"""
WARM_UP_RUNS = int(re.search(r"const WARM_UP_RUNS = (\d+);", WIDGET.read_text()).group(1))


def expected(**inputs: object) -> list[list[str]]:
    """The summary rows CPython gives for these inputs, as the page should show them."""
    module = sims.load("batching")
    summary = module.simulate(**inputs)["summary"]
    return [[module.METRICS[key], display(value)] for key, value in summary.items()]


def shown(page: Page) -> list[list[str]]:
    return page.eval_on_selector_all(
        f"{SIM} table.sim-summary tbody tr",
        "rows => rows.map(r => [r.cells[0].textContent, r.cells[1].textContent])",
    )


def wait_ready(page: Page) -> None:
    page.wait_for_selector(f'{SIM}:is([data-state="ready"], [data-state="error"])',
                           timeout=READY_MS)
    state = page.get_attribute(SIM, "data-state")
    assert state == "ready", page.inner_text(f"{SIM} .sim-status")


def wait_for_summary(page: Page, rows: list[list[str]]) -> None:
    expect(page.locator(f"{SIM} table.sim-summary tbody td")).to_have_text(
        [value for _, value in rows], timeout=15_000
    )
    assert shown(page) == rows


def open_page(page: Page, base_url: str, query: str = "") -> None:
    page.goto(base_url + PATH + query)
    wait_ready(page)


def prerendered_summary(base_url: str) -> list[list[str]]:
    """The summary as the built HTML holds it, before any script has run."""
    with urllib.request.urlopen(base_url + PATH) as response:
        text = response.read().decode()
    assert '<div class="sim" id="sim-batching" data-sim="batching"' in text
    assert 'data-state="prerendered"' in text
    table = re.search(r'<table class="sim-summary">.*?</table>', text).group(0)
    return [
        [html.unescape(label), html.unescape(value)]
        for label, value in re.findall(r"<th scope=\"row\">(.*?)</th><td>(.*?)</td>", table)
    ]


def open_with_the_runtime_held(page: Page, base_url: str) -> Route:
    """Open the page with Pyodide's runtime held back: once the worker asks for it, the
    request waits; the caller lets it through with `continue_()`."""
    held: list[Route] = []
    page.route("**/pyodide.asm.wasm", lambda route: held.append(route))
    page.goto(base_url + PATH)
    for _ in range(200):  # until the worker asks for the runtime, which is now held back
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the worker never asked for pyodide.asm.wasm"
    return held[0]


def test_prerendered_results_show_before_python_is_ready(page: Page, base_url: str) -> None:
    held = open_with_the_runtime_held(page, base_url)
    assert page.get_attribute(SIM, "data-state") == "loading"
    assert shown(page) == expected()
    charts = page.locator(f"{SIM} figure.sim-chart > svg")
    expect(charts).to_have_count(2)
    assert charts.first.locator("title").text_content() == "Who holds each batch slot, step by step"
    assert "computed when this page was built" in page.inner_text(f"{SIM} .sim-status")
    expect(page.locator(f"{SIM} .sim-progress")).to_be_visible()
    held.continue_()
    wait_ready(page)


def test_python_becomes_ready_and_agrees_with_the_prerendered_summary(
    page: Page, base_url: str
) -> None:
    prerendered = prerendered_summary(base_url)
    assert prerendered == expected()
    open_page(page, base_url)
    assert shown(page) == prerendered  # the first live run, at the same inputs
    assert "Live" in page.inner_text(f"{SIM} .sim-status")
    expect(page.locator(f"{SIM} .sim-progress")).to_be_hidden()
    expect(page.locator(BATCH)).to_be_enabled()


def test_changing_batch_size_changes_the_summary_and_the_chart(page: Page, base_url: str) -> None:
    open_page(page, base_url)
    first_chart = page.locator(f"{SIM} figure.sim-chart").first
    prerendered_svg = first_chart.inner_html()
    page.fill(BATCH_BOX, "8")
    wait_for_summary(page, expected(batch_size=8))
    expect(page.locator(f"{SIM} .sim-chart-live canvas")).to_have_count(2)
    live = first_chart.locator(".sim-chart-live canvas")
    assert first_chart.inner_html() != prerendered_svg
    expect(page).to_have_url(re.compile(r"[?&]batching\.batch_size=8\b"))
    # The next change swaps the data of the same view: the canvas stays, its marks move.
    live.evaluate("canvas => { canvas.dataset.kept = 'yes'; }")
    before = live.evaluate(PICTURE)
    page.fill(BATCH_BOX, "2")
    wait_for_summary(page, expected(batch_size=2))
    expect(live).to_have_attribute("data-kept", "yes")
    expect(page.locator(f"{SIM} .sim-output")).to_have_attribute("data-stale", "false")
    assert live.evaluate(PICTURE) != before


def test_live_charts_take_the_text_colour_of_the_scheme_the_reader_switches_to(
    page: Page, base_url: str
) -> None:
    open_page(page, base_url)
    page.fill(BATCH_BOX, "8")
    wait_for_summary(page, expected(batch_size=8))
    live = page.locator(f"{SIM} .sim-chart-live canvas")
    expect(live).to_have_count(2)

    def fewest_ink_pixels() -> int:
        return min(live.nth(index).evaluate(INK_PIXELS) for index in range(2))

    light = page.evaluate("getComputedStyle(document.querySelector('.sim-chart-live')).color")
    assert fewest_ink_pixels() > 100
    page.locator("form[data-rp-palette] label:not([hidden])").first.click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    dark = page.evaluate("getComputedStyle(document.querySelector('.sim-chart-live')).color")
    assert dark != light
    # Drawn again in the dark scheme's text colour, still named as before.
    for _ in range(100):
        if fewest_ink_pixels() > 100:
            break
        page.wait_for_timeout(50)
    assert fewest_ink_pixels() > 100
    title = sims.load("batching").simulate(batch_size=8)["charts"][0]["title"]["text"]
    labelled = live.first.get_attribute("aria-labelledby").split()
    assert page.locator(f"#{labelled[0]}").text_content() == title
    expect(live.first).to_have_attribute("role", "img")


# The next view built fails as it is drawn into its container, once.
FAIL_NEXT_VIEW = """() => {
  const prototype = vega.View.prototype;
  const initialize = prototype.initialize;
  prototype.initialize = function () {
    prototype.initialize = initialize;
    throw new Error("no view this time");
  };
}"""


def test_a_chart_that_fails_to_redraw_for_a_new_scheme_is_reported_and_drawn_at_the_next_change(
    page: Page, base_url: str
) -> None:
    """Switching scheme builds every live view again (charts.js, redraw). A view that fails
    to build is reported as an uncaught error is, the other charts are still drawn in the
    new colours, and the reader's next change draws the failed chart afresh (in them)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_page(page, base_url)
    page.fill(BATCH_BOX, "8")
    wait_for_summary(page, expected(batch_size=8))
    live = page.locator(f"{SIM} .sim-chart-live canvas")
    expect(live).to_have_count(2)
    page.evaluate(FAIL_NEXT_VIEW)
    scheme = page.get_attribute("body", "data-md-color-scheme")  # a stored one, or the default
    page.locator("form[data-rp-palette] label:not([hidden])").first.click()
    expect(page.locator("body")).not_to_have_attribute("data-md-color-scheme", scheme or "")
    for _ in range(100):
        if errors:
            break
        page.wait_for_timeout(50)
    assert any("no view this time" in error for error in errors), errors
    # The second chart is drawn in the new scheme's text colour all the same.
    for _ in range(100):
        if live.nth(1).evaluate(INK_PIXELS) > 100:
            break
        page.wait_for_timeout(50)
    assert live.nth(1).evaluate(INK_PIXELS) > 100
    page.fill(BATCH_BOX, "2")
    wait_for_summary(page, expected(batch_size=2))
    expect(page.locator(f"{SIM} .sim-output")).to_have_attribute("data-stale", "false")
    expect(live).to_have_count(2)
    for index in range(2):
        assert live.nth(index).evaluate(INK_PIXELS) > 100
    assert len(errors) == 1, errors


def pointed_tooltip(page: Page, chart: Locator) -> dict[str, str]:
    """Point at a live chart's marks until one shows its tooltip (its container's title, as
    Vega's own tooltip sets it): the tooltip's lines as {title: value}."""
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    assert box is not None
    for y in range(10, int(box["height"]) - 10, 8):
        for x in range(10, int(box["width"]) - 10, 8):
            page.mouse.move(box["x"] + x, box["y"] + y)
            title = chart.get_attribute("title")
            if title:
                return dict(line.split(": ", 1) for line in title.split("\n"))
    raise AssertionError("no mark of the chart showed a tooltip")


def test_a_live_charts_tooltip_shows_the_pointed_rows_values_after_every_change(
    page: Page, base_url: str
) -> None:
    """The page evaluates a mark's tooltip only when it is shown (expressions.js, Tooltip):
    what it shows is the row under the pointer, as the latest run left it."""
    open_page(page, base_url)
    bars = page.locator(f"{SIM} .sim-chart-live").nth(1)
    for batch in (8, 2):
        page.fill(BATCH_BOX, str(batch))
        wait_for_summary(page, expected(batch_size=batch))
        chart = sims.load("batching").simulate(batch_size=batch)["charts"][1]
        titles = {item["title"]: item["field"] for item in chart["encoding"]["tooltip"]}
        tip = pointed_tooltip(page, bars)
        assert list(tip) == list(titles)
        rows = [{title: str(row[field]) for title, field in titles.items()}
                for row in chart["data"]["values"]]
        assert tip in rows, (batch, tip)
        page.mouse.move(0, 0)  # away, so that the next change's tooltip is a new one


def test_reaching_for_a_control_gets_the_live_charts_ready_behind_the_prerendered_ones(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    """Focus (or a pointer) on the controls loads the chart library and builds the live
    views, hidden; the prerendered charts stay until the first change replaces them."""
    open_page(page, base_url)
    figures = page.locator(f"{SIM} figure.sim-chart")
    assert not any(url.endswith("/vega.min.js") for url in recorder.requests)
    page.focus(BATCH_BOX)
    pending = page.locator(f"{SIM} figure.sim-chart > .sim-chart-pending canvas")
    expect(pending).to_have_count(2, timeout=15_000)
    expect(page.locator(f"{SIM} figure.sim-chart > svg")).to_have_count(2)  # still shown
    assert not figures.first.locator(".sim-chart-pending").is_visible()
    # The worker has run the sim ahead too (V8 optimises Python's hot paths as they run).
    worker = next(worker for worker in page.workers if worker.url.endswith("/sim/worker.js"))
    for _ in range(150):
        if worker.evaluate("self.ridgepoint.warmRuns") >= WARM_UP_RUNS:
            break
        page.wait_for_timeout(100)
    assert worker.evaluate("self.ridgepoint.warmRuns") == WARM_UP_RUNS
    assert shown(page) == expected()  # and no result of those runs was shown
    # Laid out already, at the width it keeps once shown: revealing it moves nothing.
    width = "canvas => canvas.getBoundingClientRect().width"
    widths = [pending.nth(index).evaluate(width) for index in range(2)]
    assert min(widths) > 0
    pending.first.evaluate("canvas => { canvas.dataset.prepared = 'yes'; }")
    ids = page.eval_on_selector_all("[id]", "all => all.map(e => e.id)")
    assert len(ids) == len(set(ids))  # the hidden charts have no title ids yet
    page.fill(BATCH_BOX, "8")
    wait_for_summary(page, expected(batch_size=8))
    live = page.locator(f"{SIM} figure.sim-chart > .sim-chart-live canvas")
    expect(live).to_have_count(2)
    expect(live.first).to_have_attribute("data-prepared", "yes")  # the view built ahead
    expect(live.first).to_be_visible()
    assert [live.nth(index).evaluate(width) for index in range(2)] == widths
    expect(page.locator(f"{SIM} figure.sim-chart > svg")).to_have_count(0)
    expect(page.locator(f"{SIM} .sim-chart-pending")).to_have_count(0)
    assert page.locator(f"{SIM} .sim-chart-live span[id$='-title']").first.text_content() == (
        sims.load("batching").simulate(batch_size=8)["charts"][0]["title"]["text"])


def test_the_latest_input_wins(page: Page, base_url: str) -> None:
    """A dragged slider: many changes in one burst end on the last one's results."""
    open_page(page, base_url)
    page.eval_on_selector(BATCH, """slider => {
        for (const value of [9, 3, 17, 2, 11, 30, 1, 7]) {
            slider.value = String(value);
            slider.dispatchEvent(new Event("input", { bubbles: true }));
        }
    }""")
    wait_for_summary(page, expected(batch_size=7))
    page.wait_for_timeout(500)  # nothing older lands afterwards
    assert shown(page) == expected(batch_size=7)
    expect(page.locator(f"{SIM} .sim-output")).to_have_attribute("data-stale", "false")


def test_a_bad_value_shows_its_error_next_to_the_control(page: Page, base_url: str) -> None:
    open_page(page, base_url)
    error = page.locator("#sim-batching-batch_size-error")
    page.fill(BATCH_BOX, "0")
    expect(error).to_have_text("batch_size: expected an integer from 1 to 32 slots, got 0")
    expect(page.locator(BATCH_BOX)).to_have_attribute("aria-invalid", "true")
    assert shown(page) == expected()  # the last good results stay
    page.fill(BATCH_BOX, "5")
    wait_for_summary(page, expected(batch_size=5))
    expect(error).to_be_hidden()
    expect(page.locator(BATCH_BOX)).not_to_have_attribute("aria-invalid", "true")
    # A refusal that involves two inputs lands next to the one the sim names.
    page.fill("#sim-batching-max_output_tokens + input.sim-value", "10")
    expect(page.locator("#sim-batching-max_output_tokens-error")).to_contain_text(
        "max_output_tokens: expected at least the shortest answer (20 tokens), got 10"
    )


def test_reloading_the_url_restores_the_inputs(page: Page, base_url: str) -> None:
    open_page(page, base_url)
    page.fill(BATCH_BOX, "8")
    page.fill("#sim-batching-seed + input.sim-value", "3")
    wait_for_summary(page, expected(batch_size=8, seed=3))
    expect(page).to_have_url(re.compile(r"\?batching\.batch_size=8&batching\.seed=3$"))
    page.reload()
    expect(page.locator(BATCH_BOX)).to_have_value("8")
    expect(page.locator(BATCH)).to_have_value("8")
    expect(page.locator("#sim-batching-seed + input.sim-value")).to_have_value("3")
    wait_ready(page)
    wait_for_summary(page, expected(batch_size=8, seed=3))
    expect(page.locator(f"{SIM} .sim-chart-live canvas")).to_have_count(2)


def test_controls_are_reachable_and_operable_by_keyboard(page: Page, base_url: str) -> None:
    open_page(page, base_url)
    for _ in range(300):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "sim-batching-batch_size":
            break
    else:
        pytest.fail("Tab never reached the batch size slider")
    outline = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, s.outlineWidth]; })()"
    )
    assert outline[0] != "none" and outline[1] != "0px", "focus is not visible"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_for_summary(page, expected(batch_size=6))
    expect(page.locator(BATCH)).to_have_attribute("aria-valuetext", "6 slots")
    expect(page.locator(BATCH_BOX)).to_have_value("6")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == (
        "Batch size, exact value in slots"
    )
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    wait_for_summary(page, expected(batch_size=3))
    expect(page.locator(BATCH)).to_have_value("3")


def interact(page: Page, base_url: str) -> None:
    """A reader's visit: load, wait for Python, change an input (charts go live), open the
    per-request table."""
    open_page(page, base_url)
    page.fill(BATCH_BOX, "6")
    wait_for_summary(page, expected(batch_size=6))
    expect(page.locator(f"{SIM} .sim-chart-live canvas")).to_have_count(2)
    page.click(f"{SIM} .sim-table summary")


def test_no_request_leaves_the_local_origin(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    interact(page, base_url)
    assert any(url.endswith("/assets/pyodide/pyodide.asm.wasm") for url in recorder.requests)
    assert any(url.endswith("/assets/vendor/vega.min.js") for url in recorder.requests)
    origin = "{0.scheme}://{0.netloc}/".format(urllib.parse.urlsplit(base_url))
    # Workers start from blob: URLs of the page's own origin (host-policy.html).
    own = (base_url, "data:", f"blob:{origin}")
    elsewhere = [url for url in recorder.requests if not url.startswith(own)]
    assert elsewhere == []


def test_no_console_errors(page: Page, base_url: str, recorder: Recorder) -> None:
    interact(page, base_url)
    assert recorder.errors == []


@pytest.mark.parametrize(
    ("blocked", "reason"),
    [
        (("**/pyodide.asm.wasm",), "could not download pyodide.asm.wasm"),  # Pyodide hangs here
        # The runtime's manifest names every other file Python needs.
        (("**/assets/pyodide/snapshot.json",), "could not download snapshot.json"),
        # Sims files are fetched only when Python starts without the build's snapshot.
        (("**/assets/pyodide/snapshot-*.bin", "**/assets/sims/physics/pricing.py"),
         "could not download pricing.py"),
    ],
)
def test_a_runtime_that_cannot_load_is_reported(
    page: Page, base_url: str, blocked: tuple[str, ...], reason: str
) -> None:
    for pattern in blocked:
        page.route(pattern, lambda route: route.abort())
    page.goto(base_url + PATH)
    page.wait_for_selector(f'{SIM}[data-state="error"]', timeout=READY_MS)
    status = page.inner_text(f"{SIM} .sim-status")
    assert "The live version could not start" in status and reason in status
    assert shown(page) == expected()  # the prerendered results are still there
    expect(page.locator(f"{SIM} figure.sim-chart > svg")).to_have_count(2)
    expect(page.locator(BATCH)).to_be_disabled()
