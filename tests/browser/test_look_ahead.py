"""Answers ahead of the reader, in Chromium, on the batching explainer: once a change's answer
is on screen, the worker runs the next step of the control the reader moved, and the page
keeps every answer; a step on or a step back is then answered from the page, and is the
answer the sim gives for those inputs. With look-ahead off (window.ridgepointAhead = false)
every change is computed by the worker (the bench's second figure)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.test_batching_page import BATCH, expected, open_page, shown, wait_for_summary

pytestmark = pytest.mark.browser

# Counts the marks python.js makes: a run answered from the page, a run ahead answered.
MARKS = """
window.__answers = { kept: 0, ahead: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.name === "ridgepoint:answer:kept") window.__answers.kept++;
    if (entry.name === "ridgepoint:answer:ahead") window.__answers.ahead++;
  }
}).observe({ type: "mark" });
"""


def answers(page: Page) -> dict[str, int]:
    return page.evaluate("({...window.__answers})")


def press(page: Page, key: str, batch_size: int) -> None:
    page.focus(BATCH)
    page.keyboard.press(key)
    wait_for_summary(page, expected(batch_size=batch_size))


def test_a_step_on_is_run_ahead_and_a_step_back_is_kept(page: Page, base_url: str) -> None:
    page.add_init_script(MARKS)
    open_page(page, base_url, "?batching.batch_size=8")
    press(page, "ArrowRight", 9)  # computed: nothing was ahead of a first change
    # The step after it (10) is run ahead once 9 is on screen.
    page.wait_for_function("window.__answers.ahead >= 1", timeout=15_000)
    before = answers(page)
    press(page, "ArrowRight", 10)
    after_on = answers(page)
    assert after_on["kept"] == before["kept"] + 1, "the step on was not answered from the page"
    assert shown(page) == expected(batch_size=10)  # the sim's own answer for 10
    press(page, "ArrowLeft", 9)  # back: the answer shown before is kept
    assert answers(page)["kept"] == after_on["kept"] + 1
    assert shown(page) == expected(batch_size=9)


def test_a_typed_jump_is_computed(page: Page, base_url: str) -> None:
    page.add_init_script(MARKS)
    open_page(page, base_url, "?batching.batch_size=8")
    page.fill(f"{BATCH} + input.sim-value", "23")
    wait_for_summary(page, expected(batch_size=23))
    assert answers(page)["kept"] == 0


def test_with_look_ahead_off_every_change_is_computed(page: Page, base_url: str) -> None:
    page.add_init_script("window.ridgepointAhead = false;" + MARKS)
    open_page(page, base_url, "?batching.batch_size=8")
    press(page, "ArrowRight", 9)
    press(page, "ArrowRight", 10)
    press(page, "ArrowLeft", 9)
    page.wait_for_timeout(500)  # a run ahead, were one made, would have answered by now
    assert answers(page) == {"kept": 0, "ahead": 0}
