"""The Zensical adapter: the config Zensical is given, the style its search adds, the raw
links it would misread, and the sample site it builds next to MkDocs' build of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from ridgepoint.adapters import zensical
from ridgepoint.adapters.zensical_links import rebased
from ridgepoint.finishing.csp import source_hash
from ridgepoint.finishing.offline import release
from ridgepoint.finishing.theme_bundle import HINT, BundleError, the_bundle
from tests.pipeline.conftest import sample_build
from tests.pipeline.html_tools import read_page
from tests.repo import LAYOUT

TAG_CHIP = re.compile(r'<a href="([^"]*)" class="md-tag">([^<]*)</a>')


@pytest.fixture(scope="module")
def both(sample_builds: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
         ) -> dict[str, Path]:
    """The sample site as each builder builds it."""
    return {name: sample_build(name, sample_builds, tmp_path_factory)
            for name in ("mkdocs", "zensical")}


def html_pages(site: Path) -> set[str]:
    return {path.relative_to(site).as_posix() for path in site.rglob("*.html")}


def test_the_derived_config_is_what_zensical_accepts(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITE_URL", "https://example.org/r/")
    stage = tmp_path / "build" / "docs"
    stage.mkdir(parents=True)
    config = zensical.derived_config(LAYOUT.mkdocs_yml, stage, "build", "out")
    assert config.parent == stage.parent  # the project root Zensical insists on
    document = yaml.safe_load(config.read_text(encoding="utf-8"))  # plain YAML: no !ENV
    assert document["site_url"] == "https://example.org/r/"
    assert (document["docs_dir"], document["site_dir"]) == ("docs", "out")
    assert document["theme"]["custom_dir"] == str(LAYOUT.root / "overrides")
    assert document["theme"]["variant"] == "classic"
    assert document["extra"]["search_index"] == "search.json"
    assert document["markdown_extensions"][-1] == zensical.RAW_LINKS
    assert "hooks" not in document


def test_the_search_dialogs_style_is_read_from_the_bundle() -> None:
    bundle = ("var Tc='.u{color:red}.v{content:\"\\\\2014\"}';function f(){o.appendChild("
              'C("style",{},Tc.toString()))}')
    assert zensical.bundle_styles(bundle) == ('.u{color:red}.v{content:"\\2014"}',)
    with pytest.raises(BundleError, match="no <style>"):
        zensical.bundle_styles("var Tc='x';")


@pytest.mark.parametrize(("target", "url", "source", "expected"), [
    ("../../assets/sim/widget.js", "explainers/batching/", "explainers/batching.md",
     "../assets/sim/widget.js"),
    ("../../catalogue/", "explainers/batching/", "explainers/batching.md", "../catalogue/"),
    ("figure.svg", "articles/a/", "articles/a.md", "a/figure.svg"),
    ("../", "articles/a/", "articles/a.md", "./"),
])
def test_a_page_relative_link_is_rebased_onto_the_source_folder(
    target: str, url: str, source: str, expected: str
) -> None:
    assert rebased(target, url, source) == expected


def test_zensical_builds_every_page_mkdocs_builds(both: dict[str, Path]) -> None:
    assert html_pages(both["zensical"]) == html_pages(both["mkdocs"])


def test_raw_html_links_come_out_as_mkdocs_writes_them(both: dict[str, Path]) -> None:
    """The widget script and the catalogue links are raw HTML in a page's Markdown."""
    for name in ("explainers/batching/index.html", "explainers/roofline/index.html"):
        mkdocs_page, zensical_page = (read_page(both[b] / name) for b in ("mkdocs", "zensical"))
        widget = [src for src in mkdocs_page.requests if src.endswith("sim/widget.js")]
        assert widget and set(widget) <= set(zensical_page.requests), name
        catalogue = {href for href, _, _ in mkdocs_page.anchors if "catalogue/" in href}
        assert catalogue <= {href for href, _, _ in zensical_page.anchors}, name


def test_the_finishing_pass_fits_zensicals_output(both: dict[str, Path]) -> None:
    site = both["zensical"]
    bundle = the_bundle(site)
    assert bundle.read_text(encoding="utf-8").startswith(HINT)
    style = source_hash(zensical.ADAPTER.runtime_styles(site)[0])
    page = (site / "explainers" / "batching" / "index.html").read_text(encoding="utf-8")
    assert style in page.split("style-src", 1)[1].split(";", 1)[0]
    assert not (site / "search").exists() and (site / "search.json").is_file()
    assert "search.json" in release(site, (zensical.ADAPTER.search_index,))["precache"]


@pytest.mark.parametrize("builder", ["mkdocs", "zensical"])
def test_tags_link_to_their_hubs_in_both_builds(both: dict[str, Path], builder: str) -> None:
    page = (both[builder] / "explainers" / "batching" / "index.html").read_text(encoding="utf-8")
    assert TAG_CHIP.findall(page) == [("../../feed/tags/latency/", "latency"),
                                      ("../../feed/tags/batching/", "batching")]
    assert 'class="md-tag"' not in TAG_CHIP.sub("", page)  # no unlinked chip beside them


def test_zensicals_cache_stays_beside_the_staging_tree(both: dict[str, Path]) -> None:
    assert (both["zensical"].parent / "stage" / ".cache").is_dir()
    assert not (LAYOUT.root / ".cache").exists()
