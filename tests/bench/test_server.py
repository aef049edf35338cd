"""The bench's server behaves like a static host: compressed text, cache headers, 304s,
and it counts what it sends."""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request
from pathlib import Path

from bench.server import serve


def _get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_text_is_gzipped_binary_is_not_and_revalidation_gets_304(tmp_path: Path) -> None:
    (tmp_path / "page").mkdir()
    html = ("<p>" + "latency " * 2000 + "</p>").encode()
    (tmp_path / "page" / "index.html").write_bytes(html)
    blob = bytes(range(256)) * 64
    (tmp_path / "heap.bin").write_bytes(blob)
    with serve(tmp_path) as (base, ledger):
        status, page, body = _get(base + "page/", **{"Accept-Encoding": "gzip"})
        assert status == 200 and page["Content-Encoding"] == "gzip"
        assert gzip.decompress(body) == html
        assert page["Cache-Control"].startswith("max-age=")
        status, headers, body = _get(base + "heap.bin", **{"Accept-Encoding": "gzip"})
        assert "Content-Encoding" not in headers and body == blob  # a host sends it as is
        status, _, body = _get(base + "page/", **{"If-None-Match": page["ETag"]})
        assert status == 304 and body == b""
        assert _get(base + "missing")[0] == 404
        sent = ledger.take()
    assert [item.path for item in sent] == ["/page/", "/heap.bin", "/page/", "/missing"]
    assert sent[1].size > len(blob)  # body and headers
    assert sent[0].size < len(html)  # compressed
    assert ledger.take() == []


def test_a_missing_path_gets_the_sites_404_page_with_status_404(tmp_path: Path) -> None:
    (tmp_path / "404.html").write_bytes(b"<p>no such page</p>")
    with serve(tmp_path) as (base, _):
        status, _, body = _get(base + "deep/missing/")
    assert status == 404 and body == b"<p>no such page</p>"  # as a static host serves it

