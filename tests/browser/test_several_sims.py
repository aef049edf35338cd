"""Several sims on one page: one Python worker for all, inputs kept apart, in the URL too.

No content page embeds two sims yet, so this test writes a plain page of its own into the
built site, holding the widgets exactly as the pipeline renders them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import sims
from ridgepoint.sims.blocks import SimBlock
from ridgepoint.sims.display import display
from ridgepoint.sims.simrun import SimRuns
from ridgepoint.sims.widget import widget_html
from sims.contract import defaults
from tests.browser.conftest import READY_MS, Recorder
from tests.browser.sim_pages import wake_every_sim
from tests.repo import LAYOUT

PAGE = "test-several-sims/"

pytestmark = pytest.mark.browser


def _other_sim() -> str:
    """A second module, so the worker loads two sims (batching again if it is alone)."""
    return next((name for name in sims.sim_names() if name != "batching"), "batching")


@pytest.fixture(scope="module")
def several_sims_page(built_site: Path) -> str:
    batching = sims.load("batching")
    other = _other_sim()
    blocks = [
        (SimBlock("batching", ("batch_size",), defaults(batching.INPUTS)), "batching"),
        (SimBlock("batching", ("seed",), defaults(batching.INPUTS) | {"seed": 3}),
         "batching-2"),
        (SimBlock(other, tuple(s.name for s in sims.load(other).INPUTS),
                  defaults(sims.load(other).INPUTS)), other if other != "batching" else
         "batching-3"),
    ]
    runs = SimRuns.of(LAYOUT)
    body = "".join(widget_html(block, key, runs, LAYOUT.charts) for block, key in blocks)
    document = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Several sims'
        '</title><link rel="icon" href="data:,">'
        '<link rel="stylesheet" href="../assets/sim/sim.css"></head>'
        f'<body><main class="md-typeset">{body}</main>'
        '<script type="module" src="../assets/sim/widget.js"></script></body></html>'
    )
    folder = built_site / PAGE
    folder.mkdir()
    (folder / "index.html").write_text(document, encoding="utf-8")
    return PAGE


def summary(page: Page, key: str) -> list[str]:
    return page.locator(f'[data-key="{key}"] table.sim-summary td').all_text_contents()


def expected(**inputs: object) -> list[str]:
    return [display(v) for v in sims.load("batching").simulate(**inputs)["summary"].values()]


def test_several_sims_share_one_worker_and_keep_their_inputs_apart(
    page: Page, base_url: str, several_sims_page: str, recorder: Recorder
) -> None:
    page.goto(base_url + several_sims_page)
    wake_every_sim(page)
    for element in page.locator("[data-sim]").all():
        expect(element).to_have_attribute("data-state", "ready", timeout=READY_MS)
    assert sum(url.endswith("/assets/sim/worker.js") for url in recorder.requests) == 1
    assert sum(url.endswith("/pyodide.asm.wasm") for url in recorder.requests) == 1
    assert summary(page, "batching-2") == expected(seed=3)

    page.fill("#sim-batching-2-seed + input.sim-value", "5")
    expect(page.locator('[data-key="batching-2"] table.sim-summary td')).to_have_text(
        expected(seed=5))
    assert summary(page, "batching") == expected()  # the other widget did not move
    page.fill("#sim-batching-batch_size + input.sim-value", "6")
    expect(page.locator('[data-key="batching"] table.sim-summary td')).to_have_text(
        expected(batch_size=6))
    assert summary(page, "batching-2") == expected(seed=5)
    expect(page).to_have_url(re.compile(r"\?batching-2\.seed=5&batching\.batch_size=6$"))
    assert recorder.errors == []
