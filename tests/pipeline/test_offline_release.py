"""The service worker's release (ridgepoint.finishing.offline): what it lists, caches and is named
by. Its behaviour in a browser is tests/browser/test_offline.py."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from ridgepoint.browser.runtime import PYODIDE_FILES
from ridgepoint.finishing.offline import (
    PLACEHOLDER,
    OfflineError,
    release,
    stamp_service_worker,
)
from tests.repo import LAYOUT

TEMPLATE = LAYOUT.content / "sw.js"
FILES = {
    "index.html": "home",
    "explainers/batching/index.html": "page",
    "assets/pyodide/pyodide.asm.wasm": "wasm",
    "assets/sims/batching.py": "sim",
    "assets/javascripts/bundle.js": "theme",
    "assets/javascripts/bundle.js.map": "map",
    "assets/javascripts/lunr/min/lunr.de.min.js": "german",
    "search/search_index.json": "{}",
    "feed.xml": "<feed/>",
    "_headers": "/*",
}


def site(root: Path, files: dict[str, str] = FILES) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "sw.js").write_text(TEMPLATE.read_text(encoding="utf-8"), encoding="utf-8")
    return root


def stamped(worker: Path) -> dict:
    text = worker.read_text(encoding="utf-8")
    return json.loads(re.search(r"const RELEASE = (\{.*?\});\n", text).group(1))


def test_the_template_has_one_place_for_the_release() -> None:
    assert TEMPLATE.read_text(encoding="utf-8").count(PLACEHOLDER) == 1


def test_the_release_lists_every_file_and_what_to_keep_from_the_start(tmp_path: Path) -> None:
    made = release(site(tmp_path), kept_files=("search/search_index.json",))
    assert set(made["files"]) == set(FILES) - {"_headers"}  # and never sw.js itself
    assert made["files"]["index.html"] == hashlib.sha256(b"home").hexdigest()[:16]
    assert made["precache"] == [
        "assets/javascripts/bundle.js", "assets/sims/batching.py", "search/search_index.json",
    ]
    assert made["runtime"] == ["assets/pyodide/pyodide.asm.wasm"]
    assert made["packed"] == [], "only files the build gzipped are kept unpacked too"


def test_the_search_index_is_kept_wherever_the_builder_writes_it(tmp_path: Path) -> None:
    files = {**{k: v for k, v in FILES.items() if not k.startswith("search/")},
             "search.json": "{}"}  # Zensical's, at the site root
    made = release(site(tmp_path, files), kept_files=("search.json",))
    assert made["precache"] == ["assets/javascripts/bundle.js", "assets/sims/batching.py",
                                "search.json"]
    assert "search.json" not in release(tmp_path)["precache"]  # kept only when named


def test_a_missing_search_index_stops_the_release(tmp_path: Path) -> None:
    with pytest.raises(OfflineError, match="no search.json"):
        release(site(tmp_path), kept_files=("search.json",))


def test_any_changed_file_makes_a_new_release(tmp_path: Path) -> None:
    first = release(site(tmp_path / "a"))["id"]
    assert release(site(tmp_path / "b"))["id"] == first  # same bytes, same id
    changed = release(site(tmp_path / "c", {**FILES, "feed.xml": "<feed></feed>"}))["id"]
    renamed = release(site(tmp_path / "d", {**{k: v for k, v in FILES.items()
                                                if k != "feed.xml"}, "feed2.xml": "<feed/>"}))
    assert len({first, changed, renamed["id"]}) == 3


def test_stamping(tmp_path: Path) -> None:
    root = site(tmp_path)
    identifier = stamp_service_worker(root)
    assert stamped(root / "sw.js") == release(root) | {"id": identifier}
    assert PLACEHOLDER not in (root / "sw.js").read_text(encoding="utf-8")
    with pytest.raises(OfflineError):
        stamp_service_worker(root)  # no placeholder left to fill
    assert stamp_service_worker(tmp_path / "nowhere") is None  # a site without a worker


def test_the_real_site_worker_holds_its_release(built_repo: Path) -> None:
    made = stamped(built_repo / "sw.js")
    for name, digest in made["files"].items():
        data = (built_repo / name).read_bytes()
        assert hashlib.sha256(data).hexdigest().startswith(digest), name
    on_disk = {p.relative_to(built_repo).as_posix() for p in built_repo.rglob("*") if p.is_file()}
    assert set(made["files"]) == on_disk - {"sw.js", "_headers"}
    assert {f"assets/pyodide/{name}" for name in PYODIDE_FILES} <= set(made["runtime"])
    packed = {name.removeprefix("assets/pyodide/").split("-")[0] for name in made["packed"]}
    assert packed == {"pyodide.asm.wasm", "python_stdlib", "snapshot"}, made["packed"]
    # Python's worker reads those inflated copies from the cache by the hash its manifest
    # gives: the very hash the service worker files them under.
    manifest = json.loads((built_repo / "assets" / "pyodide" / "snapshot.json").read_text())
    assert {f"assets/pyodide/{name}": digest for name, digest in manifest["unpacked"].items()
            } == {path: made["files"][path] for path in made["packed"]}
    assert {
        "assets/sim/widget.js", "assets/sim/worker.js", "assets/vendor/vega.min.js",
        "assets/sims/_runner.py", "assets/sims/batching.py", "assets/offline.js",
    } <= set(made["precache"])
    assert not [name for name in made["precache"] if name.endswith(".html")]
    # Small enough to fetch at install on any page; Python waits until it has been used.
    assert sum((built_repo / name).stat().st_size for name in made["precache"]) < 5_000_000
