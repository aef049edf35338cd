"""The pipeline's floor plan: one package per stage, each saying what it may import.

The direction between stages is import-linter's contract in pyproject.toml (`make test` runs
`lint-imports`); these tests hold what a contract between packages does not: that every
module sits in a stage, that no module is part of an import circle (inside a package too),
that a stage stays small enough to read, and that each says its job.
"""

from __future__ import annotations

import ast
import tomllib

import grimp

from tests.repo import LAYOUT

PIPELINE = LAYOUT.scripts / "ridgepoint"
LARGEST_STAGE = 15  # modules: past that a stage holds two jobs and wants splitting


def _stages() -> list[str]:
    contracts = tomllib.loads((LAYOUT.code / "pyproject.toml").read_text("utf-8"))
    layers = next(contract["layers"]
                  for contract in contracts["tool"]["importlinter"]["contracts"]
                  if contract["type"] == "layers")
    return [name.strip() for row in layers for name in row.split("|")]


def test_every_module_of_the_pipeline_sits_in_a_stage_the_contract_names() -> None:
    stages = {name.removeprefix("ridgepoint.") for name in _stages()}
    loose = sorted(path.name for path in PIPELINE.glob("*.py") if path.name != "__init__.py")
    packages = {path.parent.name for path in PIPELINE.glob("*/__init__.py")}
    assert loose == [], "a module at the package's root belongs to no stage"
    assert packages == stages, "a package the layers contract does not place, or the reverse"


def test_no_module_of_the_pipeline_imports_itself_through_others() -> None:
    graph = grimp.build_graph("ridgepoint")
    circles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                circles.append(" -> ".join((module, *back)))
    assert circles == []


def test_no_stage_holds_more_modules_than_one_reader_can_take_in() -> None:
    sizes = {
        package.parent.name: len([path for path in package.parent.rglob("*.py")
                                  if path.name != "__init__.py"
                                  and "templates" not in path.parts])
        for package in PIPELINE.glob("*/__init__.py")
    }
    assert max(sizes.values()) <= LARGEST_STAGE, sizes


def test_every_stage_says_its_job_and_what_it_may_import() -> None:
    for package in sorted(PIPELINE.glob("*/__init__.py")):
        docstring = ast.get_docstring(ast.parse(package.read_text("utf-8"))) or ""
        assert "Stage:" in docstring, f"{package.parent.name}: no 'Stage:' line"
        assert "import" in docstring.split("Stage:", 1)[1].lower(), (
            f"{package.parent.name}: its 'Stage:' line says nothing of what it may import")
