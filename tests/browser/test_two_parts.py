"""A run answered in two parts, in Chromium, on the goodput and KV-memory explainers
(sims/kit/phased.py): a computed change shows the summary with the sweep's figures pending
and the first chart drawn while the other charts wait, then the whole answer, the one
CPython gives, with nothing left pending or waiting."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

import sims
from ridgepoint.sims.display import display
from sims.kit.contract import Number

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test runs on each builder's site (conftest)

# What the page marks as it goes, recorded as it happens (each mutation's callback runs at
# the end of the task that made it, before the next answer could be drawn): rows marked
# pending with their text, charts marked waiting, and the order of the drawn marks.
RECORD = """
window.ridgepointAhead = false;
window.__parts = { pending: [], waiting: [], marks: [] };
new MutationObserver((records) => {
  for (const record of records) {
    const target = record.target;
    if (!target.hasAttribute(record.attributeName)) continue;
    if (record.attributeName === "data-pending") {
      window.__parts.pending.push([target.dataset.key, target.cells[1].textContent]);
    } else {
      const figures = [...target.parentElement.querySelectorAll("[data-sim-part='chart']")];
      window.__parts.waiting.push(figures.indexOf(target));
    }
  }
}).observe(document, { subtree: true, attributes: true,
                       attributeFilter: ["data-pending", "data-waiting"] });
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.name.startsWith("ridgepoint:drawn:") && entry.detail?.sim === window.__parts.sim) {
      window.__parts.marks.push(entry.name);
    }
  }
}).observe({ type: "mark" });
"""


# Each sim answering in two parts, on its explainer: the slider moved one step, and the
# summary figures its first part leaves pending.
CASES = {
    "goodput": ("explainers/goodput/", "request_rate",
                ["capacity_rps", "ttft_capacity_rps", "tpot_capacity_rps", "peak_goodput_rps",
                 "peak_goodput_rate_rps"]),
    "kv_memory": ("explainers/kv-memory/", "max_output_tokens", []),
}


@pytest.mark.parametrize("module", sorted(CASES))
def test_a_computed_change_shows_its_first_part_then_the_whole(
        page: Page, base_url: str, module: str) -> None:
    path, name, pending = CASES[module]
    sim = sims.load(module)
    spec = next(spec for spec in sim.INPUTS if spec.name == name)
    assert isinstance(spec, Number)
    whole = sim.simulate(**{name: spec.default + spec.step})
    page.add_init_script(RECORD)
    page.goto(base_url + path)
    root = f'[data-sim="{module}"]'
    page.wait_for_selector(f'{root}[data-state="ready"]', timeout=30_000)
    page.evaluate(f"window.__parts = {{ sim: '{module}', pending: [], waiting: [], marks: [] }}")
    page.focus(f"#sim-{module}-{name}")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.__parts.marks.includes('ridgepoint:drawn:all')")
    expect(page.locator(f"{root} table.sim-summary tbody td")).to_have_text(
        [display(value) for value in whole["summary"].values()])
    parts = page.evaluate("window.__parts")
    assert parts["pending"] == [[figure, "…"] for figure in pending]
    # Every chart but the first part's first, which came with the summary, waited.
    charts = len(whole["charts"])
    assert parts["waiting"] == list(range(1, charts))
    assert parts["marks"] == ["ridgepoint:drawn:first", "ridgepoint:drawn:all"]
    left = page.locator(f"{root} [data-pending], {root} [data-waiting], {root} [aria-busy]")
    assert left.count() == 0
