"""Pinning a run, in Chromium, on the batching explainer (two charts): the pinned run's marks
are drawn on every chart of every later run, each summary figure shows its signed change,
the pinned inputs travel in the URL (a link opens the comparison, the page recomputing the
pinned run), unpinning takes it all away, and the built page holds none of it."""

from __future__ import annotations

import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import Page, expect

import sims
from tests.browser.test_batching_page import (
    BATCH_BOX,
    PATH,
    PICTURE,
    SIM,
    expected,
    open_page,
)

pytestmark = pytest.mark.browser

MINUS = "\u2212"
CANVASES = f"{SIM} figure.sim-chart canvas"


def js_number(value: float) -> str:
    """A number as JavaScript writes it (12, not 12.0)."""
    return str(int(value)) if value == int(value) else repr(value)


def change(now: object, then: object) -> str:
    """compare.js's words for a figure's change from the pinned run, for the check."""
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (now, then))
    if not numbers or now == then:
        return "same as pinned" if str(now) == str(then) or now == then else f"pinned: {then}"
    sign = "+" if now > then else MINUS
    if then == 0:
        return f"{sign}{js_number(abs(now - then))} vs pinned"
    return f"{sign}{js_number(float(f'{abs(now - then) / abs(then) * 100:.2g}'))}% vs pinned"


def changes(**now_and_pinned: dict[str, object]) -> list[str]:
    module = sims.load("batching")
    start = {spec.name: spec.default for spec in module.INPUTS}
    now = module.simulate(**{**start, **now_and_pinned["now"]})["summary"]
    then = module.simulate(**{**start, **now_and_pinned["pinned"]})["summary"]
    return [change(now[key], then[key]) for key in now]


def shown_changes(page: Page) -> list[str]:
    return page.eval_on_selector_all(f"{SIM} td.sim-delta",
                                     "cells => cells.map(c => c.textContent)")


def wait_for_summary(page: Page, rows: list[list[str]]) -> None:
    """The figures (not their changes) are these rows'."""
    expect(page.locator(f"{SIM} table.sim-summary tbody td:not(.sim-delta)")).to_have_text(
        [value for _, value in rows], timeout=15_000)


def run_at(page: Page, batch_size: int) -> None:
    page.fill(BATCH_BOX, str(batch_size))
    wait_for_summary(page, expected(batch_size=batch_size))


def pictures(page: Page) -> list[str]:
    page.wait_for_timeout(300)  # the charts follow the summary within a frame or two
    return page.eval_on_selector_all(CANVASES, f"canvases => canvases.map({PICTURE})")


def pin_params(page: Page) -> dict[str, str]:
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    return {key: value[0] for key, value in query.items() if ".pin" in key}


def test_a_pinned_run_is_drawn_beside_every_later_run_until_unpinned(
    page: Page, base_url: str
) -> None:
    open_page(page, base_url)
    pin = page.get_by_role("button", name="Pin this run")
    expect(pin).to_be_enabled()
    run_at(page, 12)
    pin.click()
    expect(page.get_by_role("button", name="Unpin")).to_be_visible()
    expect(page.locator(f"{SIM} .sim-pin-note")).to_contain_text("Pinned")
    assert pin_params(page) == {"batching.pin": "1", "batching.pin.batch_size": "12"}
    run_at(page, 16)
    expect(page.locator(f"{SIM} td.sim-delta")).to_have_text(
        changes(now={"batch_size": 16}, pinned={"batch_size": 12}))
    assert any(text.startswith(("+", MINUS)) for text in shown_changes(page))
    # Every chart is live and carries the pinned run's marks: unpinned, each picture changes.
    expect(page.locator(CANVASES)).to_have_count(2)
    compared = pictures(page)
    page.get_by_role("button", name="Unpin").click()
    expect(page.locator(f"{SIM} td.sim-delta")).to_have_count(0)
    assert pin_params(page) == {}
    alone = pictures(page)
    assert all(a != b for a, b in zip(compared, alone, strict=True))
    # Pinned again at the same inputs, the charts get their ghosts back.
    page.get_by_role("button", name="Pin this run").click()
    expect(page.locator(f"{SIM} td.sim-delta").first).to_have_text("same as pinned")
    assert all(a != b for a, b in zip(pictures(page), alone, strict=True))


def test_a_link_with_the_pinned_inputs_opens_the_comparison(page: Page, base_url: str) -> None:
    open_page(page, base_url, "?batching.batch_size=16&batching.pin=1&batching.pin.batch_size=4")
    wait_for_summary(page, expected(batch_size=16))
    expect(page.locator(f"{SIM} td.sim-delta")).to_have_text(
        changes(now={"batch_size": 16}, pinned={"batch_size": 4}))
    expect(page.get_by_role("button", name="Unpin")).to_be_visible()
    expect(page.locator(CANVASES)).to_have_count(2)  # drawn live, with the ghosts
    # The same comparison at the starting inputs: the prerendered SVGs give way to it too.
    open_page(page, base_url, "?batching.pin=1&batching.pin.batch_size=4")
    expect(page.locator(f"{SIM} td.sim-delta")).to_have_text(
        changes(now={}, pinned={"batch_size": 4}))
    expect(page.locator(CANVASES)).to_have_count(2)


def test_pinned_inputs_the_sim_refuses_are_dropped_and_said(page: Page, base_url: str) -> None:
    open_page(page, base_url, "?batching.pin=1&batching.pin.batch_size=999")
    expect(page.locator(f"{SIM} .sim-pin-note")).to_contain_text("The pinned inputs were refused")
    expect(page.locator(f"{SIM} td.sim-delta")).to_have_count(0)
    assert pin_params(page) == {}


def test_the_built_page_holds_no_pin(base_url: str) -> None:
    with urllib.request.urlopen(base_url + PATH) as response:
        text = response.read().decode()
    assert "sim-pin" not in text
    assert "sim-delta" not in text
