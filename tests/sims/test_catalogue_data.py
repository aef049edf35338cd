"""sims/catalogue_data.py: the catalogue YAML as the sims read it, kept in sync.

The sims carry no YAML parser (they run in the browser), so the catalogue reaches them as a
generated module (ridgepoint.catalogue.sims_module). These tests hold the committed module to the
YAML, show when it is rewritten and when not, and prove the promise of the README: adding a
GPU or a model is one YAML file, and after staging it is on the catalogue page and among
every sim's choices.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ridgepoint.base.layout import Layout
from ridgepoint.catalogue.sims_module import MODULE, SOURCES, render, sync_sims_module
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from tests.repo import LAYOUT

CATALOGUE_KINDS = [kind for kind in KINDS if kind.name in SOURCES]
GPU_DIR = next(kind.folder for kind in KINDS if kind.name == "gpus")
MODEL_DIR = next(kind.folder for kind in KINDS if kind.name == "models")


def test_the_committed_module_is_the_yaml_rendered() -> None:
    """If this fails, run `make check` (it rewrites the module) and commit the result."""
    site = load_site(LAYOUT.root, kinds=CATALOGUE_KINDS)
    assert (LAYOUT.sims / MODULE).read_text(encoding="utf-8") == render(site)


def _copy(destination: Path) -> Layout:
    """The sims and the catalogue in a tree of their own: a repository-shaped layout."""
    shutil.copytree(LAYOUT.sims, destination / "sims",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(LAYOUT.content / "catalogue", destination / "content" / "catalogue")
    return Layout.of(destination)


def _add_gpu(root: Path, key: str, name: str) -> None:
    """A new GPU file: the H100's figures under another name, nothing else touched."""
    text = (LAYOUT.root / GPU_DIR / "h100.yaml").read_text(encoding="utf-8")
    (root / GPU_DIR / f"{key}.yaml").write_text(
        text.replace("name: NVIDIA H100 SXM 80 GB", f"name: {name}"), encoding="utf-8")


def _add_model(root: Path, key: str, name: str) -> None:
    text = (LAYOUT.root / MODEL_DIR / "llama-3.2-1b.yaml").read_text(encoding="utf-8")
    (root / MODEL_DIR / f"{key}.yaml").write_text(
        text.replace("name: Llama 3.2 1B", f"name: {name}"), encoding="utf-8")


def test_the_module_is_written_only_when_its_bytes_change(tmp_path: Path) -> None:
    layout = _copy(tmp_path)
    module = layout.sims / MODULE
    before = module.stat().st_mtime_ns
    assert sync_sims_module(layout) is False  # already in sync: not touched
    assert module.stat().st_mtime_ns == before
    _add_gpu(layout.root, "test-gpu", "Test GPU")
    assert sync_sims_module(layout) is True
    assert "'test-gpu': {" in module.read_text(encoding="utf-8")
    assert "'name': 'Test GPU'" in module.read_text(encoding="utf-8")
    assert sync_sims_module(layout) is False


def test_a_broken_catalogue_leaves_the_module_as_it_was(tmp_path: Path) -> None:
    layout = _copy(tmp_path)
    module = layout.sims / MODULE
    text = module.read_text(encoding="utf-8")
    (layout.root / GPU_DIR / "broken.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    assert sync_sims_module(layout) is False
    assert module.read_text(encoding="utf-8") == text


def test_a_content_tree_served_by_other_code_never_rewrites_its_sims(tmp_path: Path) -> None:
    code = _copy(tmp_path / "code")
    content = tmp_path / "content-only"
    shutil.copytree(LAYOUT.content / "catalogue", content / "content" / "catalogue")
    _add_gpu(content, "test-gpu", "Test GPU")
    module = code.sims / MODULE
    text = module.read_text(encoding="utf-8")
    assert sync_sims_module(code.with_content(content)) is False
    assert module.read_text(encoding="utf-8") == text


# What the subprocess below prints: the staged catalogue page's anchors for the new entries,
# and every sim's GPU and model choices, read from the copy's sims after staging.
PROBE = """
import json, sys
from pathlib import Path
from ridgepoint.base.layout import Layout
from ridgepoint.staging.stage import stage_site
root = Path(sys.argv[1])
stage_site(Layout.of(root), stage_dir=root / "stage" / "docs")
import sims
choices = {}
for name in sims.sim_names():
    module = sims.load(name)
    for spec in module.INPUTS:
        if spec.name in ("gpu", "model"):
            choices.setdefault(name, {})[spec.name] = list(spec.choices)
page = (root / "stage" / "docs" / "catalogue" / "index.md").read_text(encoding="utf-8")
print(json.dumps({"sims_file": sims.__file__, "choices": choices, "page": page}))
"""


@pytest.fixture(scope="module")
def staged_with_new_entries(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A copy of the repository's content and sims with one GPU and one model added as YAML
    files, staged (as `make build` stages) in a fresh Python, which then reports."""
    root = tmp_path_factory.mktemp("catalogue-added")
    shutil.copytree(LAYOUT.sims, root / "sims", ignore=shutil.ignore_patterns("__pycache__"))
    ignore = shutil.ignore_patterns("__pycache__", ".*")
    for folder in ("content", "glossary", "feed"):
        shutil.copytree(LAYOUT.root / folder, root / folder, ignore=ignore)
    shutil.copy2(LAYOUT.mkdocs_yml, root / "mkdocs.yml")
    (root / "node_modules").symlink_to(LAYOUT.node_modules)
    _add_gpu(root, "test-gpu", "Test GPU 80 GB")
    _add_model(root, "test-model-1b", "Test Model 1B")
    environment = {**os.environ, "RIDGEPOINT_SNAPSHOT": "off",
                   "PYTHONPATH": os.pathsep.join([str(root), str(LAYOUT.scripts)])}
    done = subprocess.run([sys.executable, "-c", PROBE, str(root)], env=environment,
                          capture_output=True, text=True, timeout=600, check=False, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert Path(report["sims_file"]).is_relative_to(root)  # the copy's sims, not ours
    return report


def test_a_new_gpu_and_model_are_on_the_catalogue_page(staged_with_new_entries: dict) -> None:
    page = staged_with_new_entries["page"]
    assert "### Test GPU 80 GB {#gpu-test-gpu}" in page
    assert "### Test Model 1B {#model-test-model-1b}" in page
    # The calculator widget at the page's end was prerendered by sims reloaded after the
    # module was rewritten: its GPU control offers the new one.
    assert 'value="test-gpu"' in page and 'value="test-model-1b"' in page


# Choices that are the catalogue filtered by a rule their sim states, and whether the new
# entries pass it: the moe sim offers mixtures of experts only, and the test model is dense.
FILTERED_OUT = {("moe", "model"): False}


def test_a_new_gpu_and_model_are_among_every_sims_choices(
    staged_with_new_entries: dict
) -> None:
    choices = staged_with_new_entries["choices"]
    assert {"roofline", "tensor_parallel", "batching", "chunked_prefill", "calculator"} <= set(
        choices)
    for name, inputs in choices.items():
        for key, new in (("gpu", "test-gpu"), ("model", "test-model-1b")):
            if key in inputs:
                assert (new in inputs[key]) == FILTERED_OUT.get((name, key), True), (name, key)

