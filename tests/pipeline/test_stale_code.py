"""A cache never serves output made from code other than the code its key names: a sim's
default or logic edited between builds shows in the next build, and only the pages using
that sim are staged again. (The same under `make serve`: tests/browser/test_serve.py.)"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bench.tree import copy_tree
from ridgepoint.base import urls
from ridgepoint.base.layout import Layout
from ridgepoint.content.load import load_site
from ridgepoint.pages import generate_pages
from ridgepoint.sims import simcode
from ridgepoint.sims.display import display
from ridgepoint.sims.simsource import SimSource
from ridgepoint.staging.stage import stage_site
from tests.pipeline.conftest import sample_tree
from tests.repo import LAYOUT

DEFAULT = 'Number("requests", "Requests", default=14,'
LOGIC = 'summary["full_step_ms"] = round(price(full) * 1e3, 3)'
ENVIRONMENT = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "RIDGEPOINT_SNAPSHOT": "off"}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} no longer holds {old!r}: update this test"
    path.write_text(text.replace(old, new), encoding="utf-8")


def native(tree: Layout, *arguments: str) -> dict:
    """The copy's own sim, run by the command line in a fresh interpreter.

    Its bytecode goes to a fresh folder on every run: the edits these tests make keep the
    file's size, and Python trusts a `.pyc` whose recorded size and whole-second mtime
    match, so a run in the same second as the last edit would replay the old code."""
    with tempfile.TemporaryDirectory(prefix="pycache-") as bytecode:
        done = subprocess.run([sys.executable, "-m", "sims", *arguments], cwd=tree.code,
                              capture_output=True, text=True, check=True,
                              env={**ENVIRONMENT, "PYTHONPATH": str(tree.code),
                                   "PYTHONPYCACHEPREFIX": bytecode})
    return json.loads(done.stdout)


def build(tree: Layout) -> str:
    """`scripts/build.py` of the copy (its own pipeline and sims); the batching explainer."""
    done = subprocess.run([sys.executable, str(tree.scripts / "build.py")], cwd=tree.code,
                          capture_output=True, text=True, env=ENVIRONMENT, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return (tree.site / "explainers" / "batching" / "index.html").read_text(encoding="utf-8")


def control_value(page: str, name: str) -> str:
    match = re.search(rf'<input type="range" id="sim-batching-{name}"[^>]*\bvalue="([^"]+)"',
                      page)
    assert match, f"no control for {name}"
    return match.group(1)


def summary_value(page: str, metric: str) -> str:
    match = re.search(rf'<tr data-key="{metric}"><th scope="row">[^<]*</th><td>([^<]*)</td>',
                      page)
    assert match, f"no summary row for {metric}"
    return match.group(1)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Layout:
    return copy_tree(LAYOUT, tmp_path_factory.mktemp("stale") / "repo")


def test_a_sims_new_default_and_logic_show_in_the_next_builds(tree: Layout) -> None:
    first = build(tree)
    assert control_value(first, "requests") == "14"
    step = native(tree, "batching")["summary"]["full_step_ms"]
    assert summary_value(first, "full_step_ms") == display(step)

    edit(tree.sims / "batching.py", DEFAULT, DEFAULT.replace("14", "18"))
    second = build(tree)
    assert control_value(second, "requests") == "18"
    mean = native(tree, "batching")["summary"]["static_mean_latency_s"]
    assert summary_value(second, "static_mean_latency_s") == display(mean)

    edit(tree.sims / "batching.py", LOGIC, LOGIC.replace("1e3", "2e3"))
    third = build(tree)
    doubled = native(tree, "batching")["summary"]["full_step_ms"]
    assert doubled == pytest.approx(2 * step, rel=1e-3)
    assert summary_value(third, "full_step_ms") == display(doubled)
    served = (tree.site / "assets" / "sims" / "batching.py").read_text(encoding="utf-8")
    assert LOGIC.replace("1e3", "2e3") in served  # the browser gets the code the page shows


def test_editing_a_sim_restages_only_the_pages_that_use_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RIDGEPOINT_SNAPSHOT", "off")
    sims = tmp_path / "sims"
    shutil.copytree(LAYOUT.sims, sims, ignore=shutil.ignore_patterns("__pycache__"))
    layout = dataclasses.replace(
        LAYOUT.with_content(sample_tree(tmp_path / "root")), sims=sims,
        sim_runs=tmp_path / "cache" / "runs", staged=tmp_path / "cache" / "staged")
    stage = tmp_path / "docs"
    stage_site(layout, LAYOUT.mkdocs_yml, stage)
    entries = {path: path.read_bytes() for path in layout.staged.iterdir()}
    runs = {path.parent for path in layout.sim_runs.rglob("*.json")}

    edit(sims / "batching.py", DEFAULT, DEFAULT.replace("14", "18"))
    report = stage_site(layout, LAYOUT.mkdocs_yml, stage)
    assert report.written == ["assets/sims/batching.py", "explainers/batching.md"]
    assert 'value="18"' in (stage / "explainers" / "batching.md").read_text()
    changed = [path for path in layout.staged.iterdir() if path.read_bytes() != entries[path]]
    assert len(changed) == 1 and len(entries) > 1  # the one page that embeds batching
    assert {name for name in json.loads(changed[0].read_text())["uses"]
            if name.startswith("sim:")} == {"sim:batching"}
    now = {path.parent for path in layout.sim_runs.rglob("*.json")}
    assert {folder.parent.name for folder in now - runs} == {"batching"}
    assert {folder for folder in runs if folder.parent.name != "batching"} <= now


def test_a_terms_new_definition_restages_only_the_pages_linking_it_and_a_new_term_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RIDGEPOINT_SNAPSHOT", "off")
    root = sample_tree(tmp_path / "root")
    layout = dataclasses.replace(LAYOUT.with_content(root), staged=tmp_path / "staged")
    stage = tmp_path / "docs"
    stage_site(layout, LAYOUT.mkdocs_yml, stage)
    entries = {path: path.read_bytes() for path in layout.staged.iterdir()}

    term = root / "glossary" / "goodput.yaml"
    term.write_text(term.read_text().replace("Throughput that", "Output that"))
    report = stage_site(layout, LAYOUT.mkdocs_yml, stage)
    assert [p for p in report.written if p.endswith(".md")] == [
        "explainers/batching.md", "feed/tags/batching/index.md", "glossary/index.md"]
    linked = (stage / "explainers" / "batching.md").read_text()
    assert '#goodput "Output that met its targets' in linked
    changed = [path for path in layout.staged.iterdir() if path.read_bytes() != entries[path]]
    assert len(changed) == 1  # the one page linking Goodput; the others were not staged

    (root / "glossary" / "prefill.yaml").write_text(
        "# yaml-language-server: $schema=../scripts/ridgepoint/schemas/term.schema.json\n"
        "term: Prefill\ndefinition: The pass over the prompt.\ntags: [latency]\n")
    stage_site(layout, LAYOUT.mkdocs_yml, stage)
    assert "[Prefill](../glossary/index.md#prefill" in (
        stage / "explainers" / "roofline.md").read_text()  # a new name may match anywhere


def test_the_catalogue_and_calibration_pages_follow_an_edited_physics_constant_in_one_process(
    tmp_path: Path,
) -> None:
    """What `make serve` does between two saves: generate the pages again in the same
    process. The pages price with the sims as read then, not with an import made before."""
    sims = tmp_path / "sims"
    shutil.copytree(LAYOUT.sims, sims, ignore=shutil.ignore_patterns("__pycache__"))
    site = load_site(LAYOUT.root)
    before = generate_pages(site, simcode.load(SimSource.read(sims)))
    # FP4 at NVFP4's 4.5 bits a value instead of MXFP4's 4.25: the catalogue's KV bytes per
    # token (Llama 3.1 8B: 32 layers x 8 KV heads x 128 x 2 values) and every FP4 point move.
    edit(sims / "physics" / "precision.py", '"fp4": 4.25,', '"fp4": 4.5,')
    after = generate_pages(site, simcode.load(SimSource.read(sims)))
    catalogue, calibration = urls.source_path(urls.CATALOGUE), urls.source_path(urls.CALIBRATION)
    assert "FP4 34,816 bytes" in before[catalogue]
    assert "FP4 36,864 bytes" in after[catalogue]
    assert "FP4 34,816 bytes" not in after[catalogue]
    ratios = re.compile(r'<td class="rp-align-right">(\d+\.\d\d)</td>')  # ours / measured
    assert ratios.findall(before[calibration])
    assert ratios.findall(before[calibration]) != ratios.findall(after[calibration])
