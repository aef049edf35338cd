"""`make serve PORT=...` picks the port; a busy one is said in one line, before anything is
staged or built (the content below is broken: staging first would report that instead)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bench.tree import copy_tree
from tests.repo import LAYOUT


def test_make_serve_passes_the_port_on() -> None:
    done = subprocess.run(["make", "-n", "serve", "PORT=8001"], cwd=LAYOUT.code,
                          capture_output=True, text=True, check=True)
    assert "scripts/serve.py --dev-addr 127.0.0.1:8001" in done.stdout


def test_a_busy_port_is_one_line_naming_it_and_nothing_is_built(tmp_path: Path) -> None:
    tree = copy_tree(LAYOUT, tmp_path / "repo")
    (tree.root / "glossary" / "broken.yaml").write_text("term: [unclosed\n")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, str(tree.scripts / "serve.py"), "--dev-addr", f"127.0.0.1:{port}"],
            cwd=tree.code, capture_output=True, text=True, timeout=120,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"make serve: port {port} on 127.0.0.1 is already in use")
    assert "pick another: make serve PORT=" in line
    assert not (tree.build / "docs").exists()


@pytest.mark.parametrize("address", ["8001", "localhost:", "127.0.0.1:0", "127.0.0.1:99999"])
def test_a_malformed_address_is_refused_with_an_example(address: str) -> None:
    done = subprocess.run([sys.executable, str(LAYOUT.scripts / "serve.py"), "--dev-addr",
                           address], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "is not host:port (e.g. 127.0.0.1:8001)" in done.stderr
