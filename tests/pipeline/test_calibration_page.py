"""The "How close?" page (calibration/): what a reader takes in at a glance, and every point
one click from its source.

The page is generated from the real catalogue, priced by the repository's sims, so these
tests hold its structure to the calibration table rather than to fixed numbers: the chart
with its text alternative, one row per category with both sets and the verdict on the
targets, every point once and linked to its publication, every publication once under
Sources, the banded older points with their bands, and text from YAML escaped.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import re
import statistics
from collections import Counter
from pathlib import Path

import pytest

from ridgepoint.base.markup import esc
from ridgepoint.catalogue.calibration import Errors, Row, by_target, summary, table
from ridgepoint.catalogue.categories import SERVED, Category, held_as
from ridgepoint.content.calibration_records import CalibrationSet
from ridgepoint.content.catalogue_records import Citation
from ridgepoint.content.kinds import KINDS
from ridgepoint.content.load import load_site
from ridgepoint.content.model import Site
from ridgepoint.pages.calibration import LEAVES_OUT, LOADED_USERS, calibration_page
from ridgepoint.pages.calibration_tables import points_id, short_label, verdict
from tests.repo import LAYOUT, sims_code


@functools.cache
def site() -> Site:
    catalogue = [kind for kind in KINDS if kind.folder.startswith("content/catalogue/")]
    return load_site(LAYOUT.root, kinds=catalogue)


@functools.cache
def rows() -> tuple[Row, ...]:
    return tuple(table(site(), sims_code()))


@functools.cache
def page() -> str:
    return calibration_page(site(), sims_code(), LAYOUT.charts)


def text(fragment: str) -> str:
    """HTML as a reader reads it: tags dropped, references decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def element(source: str, tag: str, attributes: str) -> str:
    """The one element `<tag attributes...>...</tag>` (elements of that tag do not nest in
    what is looked for here); fails unless there is exactly one."""
    opening = f"<{tag} {re.escape(attributes)}" if attributes else f"<{tag}"
    found = re.findall(rf"{opening}[^>]*>.*?</{tag}>", source, re.DOTALL)
    assert len(found) == 1, f"<{tag} {attributes}>: {len(found)} found"
    return found[0]


def section(anchor: str) -> str:
    """The page from the heading `{#anchor}` to the next heading."""
    return page().split(f"{{#{anchor}}}", 1)[1].split("\n## ", 1)[0]


def cells(row_html: str) -> list[str]:
    return [text(cell) for cell in re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", row_html, re.S)]


# --- At a glance: lede, chart, per-category errors ----------------------------------------

def test_the_lede_gives_the_counts_and_the_held_out_errors_computed_from_the_points() -> None:
    lede = text(element(page(), "p", 'class="rp-lede"'))
    held = Errors.of([row for row in rows() if row.point.set == "held_out"])
    training = sum(row.point.set == "training" for row in rows())
    assert f"held to {len(rows()):,} published measurements" in lede
    assert f"{training:,} it was fitted to (training)" in lede
    assert f"{held.count:,} that nothing was fitted to (held out)" in lede
    assert f"median error is {held.median:.0%} and the 90th percentile {held.p90:.0%}" in lede


def test_the_chart_is_inline_svg_with_a_text_alternative_naming_every_class() -> None:
    figure = element(page(), "figure", 'class="rp-chart"')
    svg = element(figure, "svg", 'xmlns="http://www.w3.org/2000/svg"')
    assert 'role="img"' in svg
    assert 'aria-labelledby="calibration-chart-title calibration-chart-desc"' in svg
    title = text(element(svg, "title", 'id="calibration-chart-title"'))
    desc = text(element(svg, "desc", 'id="calibration-chart-desc"'))
    assert title == "Ours against measured, every point"
    assert f"the same {len(rows())} published measurements" in desc
    for label in ("GEMM", "Prefill attention", "Decode attention", "MoE layer", "All-reduce",
                  "Offline throughput", "Whole steps"):
        assert label in desc  # every class the catalogue has points of
        assert f"</svg>{label}</li>" in figure  # and in the HTML legend
    for name in ("Held out", "Training", "In no set"):
        assert f"</svg>{name}</li>" in figure
    assert "log scale" in desc and "25%" in desc
    # Both views: ours against measured, and the ratio (an axis titled for each).
    assert "Our time (log scale)" in svg and "Ours / measured (log scale)" in svg
    assert "<figcaption>" in figure


def test_without_a_chart_cache_the_page_draws_no_chart() -> None:
    """`make check` stages the page with no cache: nothing is drawn or written."""
    assert 'class="rp-chart"' not in calibration_page(site(), sims_code(), None)


def test_every_category_has_one_row_with_both_sets_and_its_verdict_under_its_profile() -> None:
    """A category with no training points of its own is shown, not held to the targets; a
    finer one (a format of a pooled class) shows its class's verdict."""
    errors, targets = summary(rows()), by_target(rows())
    every = list(dict.fromkeys(category for category, _ in errors))
    # Kernels, steps and offline runs in one table; served runs in the end-to-end section's.
    for anchor, served in (("categories", False), ("end-to-end", True)):
        categories = [category for category in every if (category.kind in SERVED) == served]
        assert categories
        _check_category_table(element(section(anchor), "table", ""), categories, errors,
                              targets)


def _check_category_table(table_html: str, categories: list[Category], errors: dict,
                          targets: dict) -> None:
    assert table_html.count("<tr data-category=") == len(categories)
    for profile in {category.profile for category in categories}:
        name = site().kernels[profile].name
        assert table_html.count(f'<th colspan="9" scope="rowgroup"><span>{esc(name)}: ') == 1
    for category in categories:
        row_html = element(table_html, "tr", f'data-category="{esc(category.label)}"')
        shown = cells(row_html)
        assert shown[0] == short_label(category)  # its profile heads the row's group
        for offset, chosen in ((1, "training"), (4, "held_out")):
            found = errors.get((category, chosen))
            expected = ([str(found.count), f"{found.median:.0%}", f"{found.p90:.0%}"]
                        if found else ["0", "–", "–"])
            assert shown[offset:offset + 3] == expected, (category.label, chosen)
        # The verdict is that of the class the targets hold the category in.
        training, held = targets[held_as(category)]
        status, words = verdict(category.kind, held, trained=training is not None)
        assert f'data-target="{status}"' in row_html and shown[-1].startswith(words)
        if held_as(category) != category and status in ("met", "missed"):
            assert f"as one class ({held.median:.0%} median" in shown[-1]
        assert f'href="#{points_id(category)}"' in row_html  # the label opens its points


def test_the_end_to_end_section_gives_the_targets_and_the_pooled_held_out_errors() -> None:
    """Issue 39's targets are on the whole held-out set: the section gives each figure's
    errors over every engine's held-out runs, from the rows."""
    note = text(section("end-to-end").split("<table", 1)[0])
    assert "TTFT median |error| at most 20%" in note
    assert "TPOT median |error| at most 12%, p90 at most 30%" in note
    for kind, label in (("ttft", "TTFT"), ("tpot", "TPOT"), ("itl", "ITL"),
                        ("serving_throughput", "throughput")):
        held = Errors.of([row for row in rows()
                          if row.point.kind == kind and row.point.set == "held_out"])
        assert (f"{label} {held.median:.0%} median, {held.p90:.0%} p90 over {held.count} runs"
                in note)
    budgets = [budget for engine in site().engines.values() if engine.deployments
               for budget in engine.deployments.token_budgets]
    assert budgets  # NIM's deployments, whose budgets the fit finds
    for budget in budgets:
        name = site().models[budget.model].name
        assert (f"{name} on {budget.gpus} GPU{'s' if budget.gpus > 1 else ''} at "
                f"{budget.tokens:,} tokens") in note
    assert "its users' first requests, which arrive together, are left out" in note


def test_the_verdict_holds_the_held_out_errors_to_the_targets() -> None:
    assert verdict("gemm", Errors(20, 0.10, 0.25, 1.0)) == ("met", "met")
    assert verdict("gemm", Errors(20, 0.11, 0.20, 1.0)) == ("missed", "missed (median)")
    assert verdict("moe", Errors(20, 0.05, 0.26, 1.0)) == ("missed", "missed (p90)")
    assert verdict("all_reduce", Errors(20, 0.3, 0.6, 1.0))[1] == "missed (both)"
    # Offline throughput has a median target only.
    assert verdict("throughput", Errors(40, 0.12, 0.5, 1.0)) == ("met", "met")
    assert verdict("throughput", Errors(40, 0.13, 0.1, 1.0)) == ("missed", "missed (median)")
    assert verdict("gemm", None) == ("untested", "no held-out points")
    assert verdict("layer", Errors(2, 0.5, 0.5, 1.0)) == ("none", "no target")


def test_what_the_model_leaves_out_is_listed_with_numbers_from_the_points() -> None:
    listed = section("leaves-out")
    for item in LEAVES_OUT.values():  # each, with what the points show of it after some
        assert esc(item) in listed
    requests = [row.ratio for row in rows()
                if row.point.kind == "request" and row.point.band is None]
    assert f"{min(requests):.2f} to {max(requests):.2f} over {len(requests)}" in listed
    skewed = [row for row in rows() if row.point.kind == "moe"
              and row.point.case.distribution not in (None, "balanced")]
    assert f"The {len(skewed)} MoE layers measured with skewed routing" in listed
    assert "Offline throughput" in listed


def test_first_token_times_are_given_per_deployment_at_a_few_users_and_under_load() -> None:
    """Each served deployment's first-token ratios, split at LOADED_USERS: where the closed
    loop's lockstep shows (a deployment's runs on one side only are left out)."""
    listed = text(section("leaves-out"))
    nim_70b = [row for row in rows() if row.point.kind == "ttft"
               and row.point.case.model == "llama-3.1-70b" and row.point.gpu == "h100"]
    light = [row.ratio for row in nim_70b if row.point.case.concurrency < LOADED_USERS]
    loaded = [row.ratio for row in nim_70b if row.point.case.concurrency >= LOADED_USERS]
    assert light and loaded
    assert (f"Llama 3.1 70B on 2 H100s (TensorRT-LLM) {statistics.median(light):.2f} over "
            f"{len(light)} runs, and {statistics.median(loaded):.2f} ({min(loaded):.2f} to "
            f"{max(loaded):.2f}) over {len(loaded)}") in listed
    groups = {(row.point.case.model, row.point.gpu, row.point.case.engine)
              for row in rows() if row.point.kind == "ttft"}
    assert listed.count(" over ") >= 2 * len(groups)


# --- Every point, one click from its source -----------------------------------------------

@pytest.mark.parametrize("index", range(0, len(rows()), 37))  # a spread of points
def test_a_point_appears_once_linked_to_its_publication_and_its_source_entry(index: int) -> None:
    row = rows()[index]
    point, publication = row.point, row.publication
    row_html = element(page(), "tr", f'id="point-{esc(point.key)}"')
    link = publication.publication.url or f"#source-{publication.slug}"
    assert f'<a href="{esc(link)}">{esc(point.what)}</a>' in row_html
    assert esc(point.where) in row_html
    assert f'href="#source-{publication.slug}"' in row_html
    assert f"{row.ratio:.2f}" in cells(row_html)
    assert f'data-set="{point.set or ""}"' in row_html


def test_every_point_appears_exactly_once_and_in_its_category() -> None:
    shown = Counter(re.findall(r'<tr id="point-([^"]+)"', page()))
    assert shown == Counter(esc(row.point.key) for row in rows())
    for category in {row.category for row in rows() if row.point.set is not None}:
        folded = element(page(), "details", f'class="rp-points" id="{points_id(category)}"')
        keys = re.findall(r'<tr id="point-([^"]+)"', folded)
        assert keys == [esc(row.point.key) for row in rows()
                        if row.category == category and row.point.set is not None]


def test_every_publication_appears_once_under_sources_with_its_link() -> None:
    sources = section("sources")
    for publication in site().calibration.values():
        entry = element(sources, "li", f'id="source-{publication.slug}"')
        citation = publication.publication
        if citation.url:
            assert f'<a href="{esc(citation.url)}">{esc(citation.title)}</a>' in entry
        assert esc(publication.measured_by) in entry
        for extra in (publication.split, publication.assumptions):
            if extra:
                assert esc(extra) in entry
        assert f"{len(publication.points)} points" in text(entry)


def test_banded_points_keep_their_bands_and_the_older_points_their_reasons() -> None:
    assert page().count('data-band="within"') == sum(bool(row.within) for row in rows())
    assert page().count('data-band="outside"') == sum(row.within is False for row in rows())
    assert page().count('data-band="none"') == sum(
        row.within is None and row.point.set is None for row in rows())
    older = section("older")
    for row in rows():
        if row.point.set is None:
            row_html = element(older, "tr", f'id="point-{esc(row.point.key)}"')
            if row.point.band is None:
                assert 'data-band="none"' in row_html
                assert esc(row.point.unbanded or "") in row_html
            else:
                assert f"±{row.point.band:.0%}" in row_html
    for chosen in ("training", "held_out"):
        assert page().count(f'data-set="{chosen}"') == sum(
            row.point.set == chosen for row in rows())


# --- Escaping ---------------------------------------------------------------------------

HOSTILE = "<script>alert(1)</script>"


def hostile_site() -> Site:
    """The real site with one publication whose every string tries to open an element: one
    point in a set and one older point held to no band."""
    real = site()
    chosen = next(publication for publication in real.calibration.values()
                  if any(point.set for point in publication.points))
    trained = next(point for point in chosen.points if point.set)
    older = dataclasses.replace(trained, key="hostile-older", set=None, band=None,
                                unbanded=f"Why: {HOSTILE}", what=f"Older {HOSTILE}")
    trained = dataclasses.replace(trained, key="hostile", what=f"What {HOSTILE}",
                                  where='Where "<img src=x onerror=alert(2)>"')
    hostile = CalibrationSet(
        slug="hostile", measured_by=f"By {HOSTILE}", split=f"Split {HOSTILE}",
        assumptions="Assumed <iframe src=x></iframe>",
        publication=Citation(title=f"Title {HOSTILE}", url="https://example.org/?a=1&b=<x>"),
        points=(trained, older))
    return dataclasses.replace(real, calibration={"hostile": hostile})


def test_text_from_yaml_is_escaped_everywhere_on_the_page(tmp_path: Path) -> None:
    shown = calibration_page(hostile_site(), sims_code(), tmp_path)
    assert not re.search(r"<(script|img|iframe)\b", shown, re.IGNORECASE)
    escaped = esc(HOSTILE)
    for where in ("What ", "Older ", "Why: ", "By ", "Split ", "Title "):
        assert f"{where}{escaped}" in shown
    assert 'href="https://example.org/?a=1&amp;b=&lt;x&gt;"' in shown
    assert esc('Where "<img src=x onerror=alert(2)>"') in shown


def test_a_category_without_training_points_is_shown_but_not_held() -> None:
    """The MI300X (priced with Hopper's constants) and NCCL with NVLink SHARP forced have
    held-out points and no training points of their own: their rows say so, whatever their
    errors, and neither counts as a category that meets or misses its targets."""
    errors = summary(rows())
    assumed = [category for category, chosen in errors
               if chosen == "held_out" and (category, "training") not in errors
               and category.kind in ("all_reduce", "gemm", "moe")]
    assert {category.label for category in assumed} >= {"All-reduce, nccl, cdna3",
                                                        "All-reduce, nvls, hopper"}
    table_html = element(section("categories"), "table", "")
    for category in assumed:
        row_html = element(table_html, "tr", f'data-category="{esc(category.label)}"')
        assert 'data-target="assumed"' in row_html
        assert "not held" in cells(row_html)[-1]
    assert verdict("all_reduce", Errors(3, 0.5, 0.9, 1.5), trained=False)[0] == "assumed"
    assert verdict("all_reduce", Errors(3, 0.5, 0.9, 1.5), trained=True)[0] == "missed"
