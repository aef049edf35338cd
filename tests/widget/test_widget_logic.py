"""The widget's logic without a browser: its phase machine and its inputs, and the order of
a sortable table's rows, under Node's own test runner (tests/widget/*.test.mjs import the
page's modules from content/assets/).

Each Node test is reported here by name, so a failure reads as the row or story that broke.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]
FILES = sorted(HERE.glob("*.test.mjs"))


@cache
def node_results() -> dict[str, tuple[bool, str]]:
    """Every Node test (file: suite > name) -> (passed, its TAP report)."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed: these tests run the page's modules under Node.js")
    results: dict[str, tuple[bool, str]] = {}
    for file in FILES:
        done = subprocess.run(["node", "--test", "--test-reporter=tap", str(file)],
                              capture_output=True, text=True, cwd=REPO, check=False)
        suites: list[str] = []
        lines = done.stdout.splitlines()
        for index, line in enumerate(lines):
            match = re.match(r"^( *)(not ok|ok) \d+ - (.*)$", line)
            if match:
                depth = len(match[1]) // 4
                if "# SKIP" in line or "# TODO" in line:
                    raise AssertionError(f"{file.name}: a skipped Node test: {line.strip()}")
                name = " > ".join([*suites[:depth], match[3]])
                # The report: the result line and its YAML block, which ends with "...".
                end = next((i for i in range(index + 1, len(lines))
                            if lines[i].strip() == "..."), index)
                results[f"{file.name}: {name}"] = (match[2] == "ok",
                                                   "\n".join(lines[index:end + 1]))
            subtest = re.match(r"^( *)# Subtest: (.*)$", line)
            if subtest:
                depth = len(subtest[1]) // 4
                suites[depth:] = [subtest[2]]
        if done.returncode != 0 and all(passed for passed, _ in results.values()):
            raise AssertionError(f"node --test {file.name} failed:\n{done.stdout}{done.stderr}")
    return results


def test_every_node_test_file_reports_its_tests() -> None:
    assert FILES, "no tests/widget/*.test.mjs"
    for file in FILES:
        assert any(name.startswith(f"{file.name}: ") for name in node_results()), file.name


@pytest.mark.parametrize("name", sorted(node_results()) if FILES else [])
def test_node(name: str) -> None:
    passed, report = node_results()[name]
    assert passed, report
