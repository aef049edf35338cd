""""Paste a config.json" on an explainer, in Chromium: the pasted model runs as the
catalogue's own, the page's address carries it (a reload gives the same), a bad paste is
refused beside the box naming the field, and the paste is offered again on another sim.

The page's Python reads the paste (sims.physics.model_choice, in the worker); CPython's
figures for the same inputs are what the page must show.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import sims
from ridgepoint.sims.display import display
from sims.physics import MODELS
from sims.physics.model_choice import CUSTOM, INPUT, NAME, read
from tests.browser.conftest import READY_MS
from tests.browser.test_a11y import BLOCKING, SCHEMES, axe_violations

pytestmark = pytest.mark.browser
EVERY_BUILDER = True  # each test runs on each builder's site (conftest)

CONFIGS = Path(__file__).parents[1] / "pipeline" / "fixtures" / "configs"
PASTED = (CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8")
PATH, KEY = "explainers/tensor-parallel/", "tensor_parallel"  # its default: llama-3.1-70b
SIM = f'[data-sim="{KEY}"]'
BOX = f"#sim-{KEY}-{INPUT}"
CONTROL = f'{SIM} [data-input="{INPUT}"]'


def summary_of(**inputs: object) -> list[str]:
    module = sims.load(KEY)
    return [display(value) for value in module.simulate(**inputs)["summary"].values()]


def wait_ready(page: Page, sim: str = SIM) -> None:
    page.locator(sim).scroll_into_view_if_needed()
    page.wait_for_selector(f'{sim}:is([data-state="ready"], [data-state="error"])',
                           timeout=READY_MS)
    assert page.get_attribute(sim, "data-state") == "ready"


def paste(page: Page, text: str) -> None:
    page.fill(BOX, text)
    page.locator(BOX).blur()  # a change, as when the reader leaves the box


def test_a_pasted_config_runs_as_the_catalogue_model_and_travels_in_the_url(
    page: Page, base_url: str
) -> None:
    value, note = read(PASTED)
    catalogue = summary_of(model="llama-3.1-8b")
    name = MODELS["llama-3.1-8b"].name
    assert summary_of(model=CUSTOM, model_config=PASTED) == [
        cell.replace(name, NAME) for cell in catalogue]  # the catalogue model's, names aside
    assert catalogue != summary_of()  # the page's own model gives other figures

    page.goto(base_url + PATH)
    wait_ready(page)
    expect(page.locator(CONTROL)).to_be_hidden()
    page.select_option(f"#sim-{KEY}-model", CUSTOM)
    expect(page.locator(CONTROL)).to_be_visible()
    paste(page, PASTED)
    expect(page.locator(f"{CONTROL} .sim-note")).to_have_text(note, timeout=15_000)
    cells = page.locator(f"{SIM} table.sim-summary tbody td")
    expect(cells).to_have_text(summary_of(model=CUSTOM, model_config=value), timeout=15_000)
    assert NAME in note

    # The address carries the model and the compact config; opening it gives the same.
    page.wait_for_function(f"() => location.search.includes('{KEY}.{INPUT}=')")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert query[f"{KEY}.model"] == [CUSTOM] and query[f"{KEY}.{INPUT}"] == [value]
    assert json.loads(value)["hidden_size"] == 4096
    shared = page.url
    page.goto(shared)
    wait_ready(page)
    expect(page.locator(CONTROL)).to_be_visible()
    expect(page.locator(BOX)).to_have_value(value)
    expect(page.locator(f"{CONTROL} .sim-note")).to_have_text(note, timeout=15_000)
    expect(cells).to_have_text(summary_of(model=CUSTOM, model_config=value), timeout=15_000)

    # Another sim offers the same paste when its model is turned to custom.
    page.goto(base_url + "explainers/roofline/")
    wait_ready(page, '[data-sim="roofline"]')
    page.select_option("#sim-roofline-model", CUSTOM)
    expect(page.locator(f"#sim-roofline-{INPUT}")).to_have_value(value)
    expect(page.locator('[data-sim="roofline"] .sim-note')).to_contain_text(
        "Your last paste", timeout=15_000)


@pytest.mark.parametrize(("text", "field"), [
    (json.dumps({k: v for k, v in json.loads(PASTED).items() if k != "hidden_size"}),
     "hidden_size"),
    (json.dumps({**json.loads(PASTED), "attn_logit_softcapping": 30.0}),
     "attn_logit_softcapping"),
])
def test_a_bad_paste_is_refused_beside_the_box_naming_the_field(
    page: Page, base_url: str, text: str, field: str
) -> None:
    page.goto(f"{base_url}{PATH}?{KEY}.model={CUSTOM}")
    wait_ready(page)
    paste(page, text)
    error = page.locator(f"{CONTROL} .sim-error")
    expect(error).to_be_visible(timeout=15_000)
    expect(error).to_contain_text(field)
    expect(page.locator(BOX)).to_have_attribute("aria-invalid", "true")
    assert f"{KEY}.{INPUT}=" not in page.url  # nothing refused is carried


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_paste_with_its_note_and_a_refusal_is_axe_clean(
    page: Page, base_url: str, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    value, note = read(PASTED)
    page.goto(f"{base_url}{PATH}?{KEY}.model={CUSTOM}&{KEY}.{INPUT}={urllib.parse.quote(value)}")
    wait_ready(page)
    expect(page.locator(f"{CONTROL} .sim-note")).to_have_text(note, timeout=15_000)
    paste(page, "{")  # and a refusal beside it
    expect(page.locator(f"{CONTROL} .sim-error")).to_contain_text("not JSON", timeout=15_000)
    blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING]
    assert not blocking, blocking
