"""Taking a result away, in Chromium, on the batching explainer (two charts and a table): the
CSV and JSON hold the inputs shown, the summary shown and each chart's data, the same in
both; each chart downloads as SVG and PNG in the scheme's colours; "Copy link" gives an
address that opens the same scenario, or a selected field when copying is refused."""

from __future__ import annotations

import csv
import io
import json
import re
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Download, Locator, Page, expect

import sims
from ridgepoint.sims.display import display
from tests.browser.conftest import Recorder
from tests.browser.test_batching_page import (
    BATCH_BOX,
    SIM,
    open_page,
    open_with_the_runtime_held,
    shown,
    wait_for_summary,
    wait_ready,
)

pytestmark = pytest.mark.browser

BAR = f"{SIM} .sim-takeaway"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
REFUSE_CLIPBOARD = """() => {
  navigator.clipboard.writeText = () =>
    Promise.reject(new DOMException("refused", "NotAllowedError"));
}"""


def button(page: Page, name: str) -> Locator:
    return page.get_by_role("button", name=name, exact=True)


def download(page: Page, name: str) -> tuple[Download, bytes]:
    with page.expect_download() as info:
        button(page, name).click()
    return info.value, Path(info.value.path()).read_bytes()


def run_at(page: Page, batch_size: int) -> dict[str, Any]:
    """Set the batch size and wait for its result; the inputs it ran on (every input)."""
    page.fill(BATCH_BOX, str(batch_size))
    config = json.loads(page.text_content(f'{SIM} [data-sim-part="config"]'))
    inputs = {**config["start"], "batch_size": batch_size}
    summary = sims.load("batching").simulate(**inputs)["summary"]
    wait_for_summary(page, [[config["metrics"][key], display(value)]
                            for key, value in summary.items()])
    return inputs


def control_values(page: Page) -> dict[str, str]:
    """Each control's value as the page shows it (the text box of a number, the select, or
    the text: the model's pasted config.json, empty while the model is the catalogue's)."""
    return page.eval_on_selector_all(
        f'{SIM} [data-sim-part="control"]',
        """boxes => Object.fromEntries(boxes.map(box => [box.dataset.input,
             box.querySelector('[data-sim-part="number"], [data-sim-part="choice"], '
                               + '[data-sim-part="text"]').value]))""",
    )


def csv_sections(text: str) -> list[list[list[str]]]:
    """The CSV's sections: runs of rows between empty lines."""
    sections: list[list[list[str]]] = [[]]
    for row in csv.reader(io.StringIO(text, newline="")):
        if row:
            sections[-1].append(row)
        else:
            sections.append([])
    return [section for section in sections if section]


def same_cell(cell: str, value: Any) -> bool:
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == str(value).lower()
    if isinstance(value, int | float):
        return float(cell) == value
    return cell == value


def assert_csv_is_the_record(data: bytes, record: dict[str, Any]) -> None:
    """The CSV download holds the JSON record's tables in its order (inputs, summary, each
    chart's data, each table), each section's title, columns and rows the same."""
    tables = [record["inputs"], record["summary"], *record["charts"], *record["tables"]]
    sections = csv_sections(data.decode("utf-8"))
    assert len(sections) == len(tables)
    for section, table in zip(sections, tables, strict=True):
        title, header, *rows = section
        assert title == [table["title"]]
        assert header == [f["column"] for f in table["fields"]]
        assert len(rows) == len(table["rows"])
        for cells, values in zip(rows, table["rows"], strict=True):
            assert all(same_cell(cell, values.get(f["name"]))
                       for cell, f in zip(cells, table["fields"], strict=True)), (cells, values)


def test_csv_and_json_hold_the_inputs_summary_and_chart_data_shown(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    held = open_with_the_runtime_held(page, base_url)
    expect(page.locator(f"{BAR} button")).to_have_count(7)  # 3 for the result, 2 per chart
    expect(page.locator(f"{BAR} button:enabled")).to_have_count(0)  # no live result yet
    held.continue_()
    wait_ready(page)
    inputs = run_at(page, 8)
    result = sims.load("batching").simulate(**inputs)
    config = json.loads(page.text_content(f'{SIM} [data-sim-part="config"]'))

    file, data = download(page, "Results as JSON")
    record = json.loads(data)
    assert re.fullmatch(rf"batching-{record['scenario']}\.json", file.suggested_filename)
    assert record["sim"] == "batching"
    [row] = record["inputs"]["rows"]
    assert row == inputs
    assert {name: str(row[name]) for name in config["show"]} == control_values(page)
    assert "batching.batch_size=8" in record["url"]
    [summary] = record["summary"]["rows"]
    assert summary == result["summary"]
    fields = record["summary"]["fields"]
    assert [[f["label"], display(summary[f["name"]])] for f in fields] == shown(page)
    assert [chart["rows"] for chart in record["charts"]] == [
        spec["data"]["values"] for spec in result["charts"]]
    assert record["charts"][1]["fields"][2]["column"] == "latency_s (s)"  # the axis's unit

    file, data = download(page, "Results as CSV")
    assert file.suggested_filename == f"batching-{record['scenario']}.csv"
    assert_csv_is_the_record(data, record)
    assert recorder.errors == []  # a refusal by the security policy would be one


def test_each_chart_downloads_as_svg_and_png_in_the_schemes_colours(
    page: Page, base_url: str, recorder: Recorder
) -> None:
    open_page(page, base_url)
    for number in (1, 2):
        file, data = download(page, f"Chart {number} as PNG")
        assert re.fullmatch(rf"batching-[0-9a-f]{{8}}-chart{number}\.png", file.suggested_filename)
        assert data.startswith(PNG_SIGNATURE) and len(data) > 1000
    inks = []
    for _ in range(2):  # one scheme, then the other; switching twice leaves the stored one
        ink = page.evaluate(f"getComputedStyle(document.querySelector('{SIM} figure')).color")
        file, data = download(page, "Chart 1 as SVG")
        assert file.suggested_filename.endswith("-chart1.svg")
        root = ET.fromstring(data)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        fills = {text.get("fill") for text in root.iter("{http://www.w3.org/2000/svg}text")}
        assert ink in fills, (ink, fills)  # the titles and labels in the page's text colour
        inks.append(ink)
        page.locator("form[data-rp-palette] label:not([hidden])").first.click()
    assert inks[0] != inks[1]
    assert recorder.errors == []


def test_copy_link_copies_the_scenario_and_falls_back_to_a_selected_field(
    page: Page, context: BrowserContext, base_url: str
) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        open_page(page, base_url)
        run_at(page, 6)
        button(page, "Copy link").focus()
        page.keyboard.press("Enter")
        status = page.locator(f"{BAR} [role=status]")
        expect(status).to_have_text("Link copied.")
        url = page.evaluate("navigator.clipboard.readText()")
        assert "batching.batch_size=6" in url
    finally:
        context.clear_permissions()

    page.evaluate(REFUSE_CLIPBOARD)
    button(page, "Copy link").click()
    field = page.get_by_label("Link to these results")
    expect(field).to_be_focused()
    expect(field).to_have_value(url)
    assert page.evaluate("document.getSelection().toString() || "
                         "document.activeElement.value.slice(document.activeElement.selectionStart,"
                         " document.activeElement.selectionEnd)") == url
    expect(status).to_contain_text("selected above")

    reopened = context.new_page()
    try:
        open_page(reopened, base_url, "?" + urllib.parse.urlsplit(url).query)
        expect(reopened.locator(BATCH_BOX)).to_have_value("6")
        assert shown(reopened) == shown(page)
    finally:
        reopened.close()
