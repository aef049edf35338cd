"""Sortable tables in Chromium: content/assets/tables.js over the markup of
scripts/ridgepoint/pages/tables.py, on the catalogue's comparison tables and the calibration
page's points.

A heading's button sorts the rows by its column, ascending then descending, by the cells'
figures (not their text), with figures a row lacks last either way; the heading announces the
order in aria-sort and the others drop theirs; the button works from the keyboard; and at a
phone's width (390 px) the table scrolls inside its wrapper while the page does not.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import Recorder

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test that uses the built site runs on each builder's (conftest)

PHONE = {"width": 390, "height": 844}


def sortable(page: Page, caption: str) -> Locator:
    return page.locator("table[data-rp-sortable]").filter(
        has=page.locator("caption", has_text=caption))


def keys(table: Locator, label: str) -> list[float | None]:
    """The column's figures in the rows' order (None: a row without one)."""
    return table.evaluate(
        """(table, label) => {
            const heading = [...table.tHead.rows[0].cells]
                .find(cell => cell.textContent.trim() === label);
            return [...table.tBodies[0].rows].map(row => {
                const key = row.cells[heading.cellIndex].dataset.sort;
                return key === "" ? null : Number(key);
            });
        }""", label)


def in_order(found: list[float | None], descending: bool) -> bool:
    figures = [key for key in found if key is not None]
    missing_last = found[len(figures):] == [None] * (len(found) - len(figures))
    return missing_last and figures == sorted(figures, reverse=descending)


def test_a_heading_sorts_the_rows_by_its_figures_and_announces_the_order(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    page.goto(base_url + "catalogue/")
    table = sortable(page, "GPUs")
    expect(table.locator("thead button.rp-sort")).to_have_count(
        table.locator("thead th").count())
    memory = table.locator("thead th", has_text="Memory (GB)")
    rows = table.locator("tbody tr")
    count = rows.count()
    assert count > 1
    expect(memory).not_to_have_attribute("aria-sort", "ascending")
    memory.get_by_role("button").click()
    expect(memory).to_have_attribute("aria-sort", "ascending")
    assert in_order(keys(table, "Memory (GB)"), descending=False)
    memory.get_by_role("button").click()
    expect(memory).to_have_attribute("aria-sort", "descending")
    assert in_order(keys(table, "Memory (GB)"), descending=True)
    # A column some GPUs have no figure in: those rows stay last, whichever the order.
    fp4 = table.locator("thead th", has_text="Dense FP4 (TFLOP/s)")
    fp4.get_by_role("button").click()
    expect(fp4).to_have_attribute("aria-sort", "ascending")
    expect(memory).not_to_have_attribute("aria-sort", "descending")
    assert memory.get_attribute("aria-sort") is None
    assert in_order(keys(table, "Dense FP4 (TFLOP/s)"), descending=False)
    fp4.get_by_role("button").click()
    assert in_order(keys(table, "Dense FP4 (TFLOP/s)"), descending=True)
    expect(rows).to_have_count(count)  # sorted, none lost
    assert recorder.errors == []


def test_the_sort_works_from_the_keyboard_and_on_the_calibration_points(
    page: Page, base_url: str
) -> None:
    page.goto(base_url + "calibration/")
    table = page.locator("#older ~ div.rp-table table[data-rp-sortable]").first
    ratio = table.locator("thead th", has_text="Ours / measured")
    ratio.get_by_role("button").focus()
    page.keyboard.press("Enter")
    expect(ratio).to_have_attribute("aria-sort", "ascending")
    assert in_order(keys(table, "Ours / measured"), descending=False)
    page.keyboard.press("Space")
    expect(ratio).to_have_attribute("aria-sort", "descending")
    assert in_order(keys(table, "Ours / measured"), descending=True)


def test_at_a_phones_width_the_table_scrolls_and_the_page_does_not(
    page: Page, base_url: str
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(base_url + "catalogue/")
    table = sortable(page, "GPUs")
    expect(table).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    scrolls = table.evaluate(
        """table => {
            for (let box = table.parentElement; box; box = box.parentElement) {
                const style = getComputedStyle(box);
                if (box.scrollWidth > box.clientWidth && /auto|scroll/.test(style.overflowX))
                    return true;
            }
            return false;
        }""")
    assert scrolls, "the table is wider than a phone, yet nothing around it scrolls"
