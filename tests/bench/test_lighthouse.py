"""The Lighthouse group's figures: every page kind's four scores, each with its target, and
the 404 page's noindex not counted against it."""

from __future__ import annotations

from bench.lighthouse import CATEGORIES, PAGE_KINDS, PRESETS, Scores, figures


def scores(kind: str, preset: str, **failing: list[str]) -> Scores:
    values = {name: 100 for name in CATEGORIES}
    for name, audits in failing.items():
        values[name.replace("_", "-")] = 60 if audits else 100
    return Scores(kind, preset, "http://127.0.0.1/", values,
                  {name.replace("_", "-"): audits for name, audits in failing.items()})


def test_every_kind_and_preset_gives_its_four_scores_with_their_targets() -> None:
    results = [scores(kind, preset) for preset in PRESETS for kind in PAGE_KINDS]
    found = {figure.name: figure for figure in figures(results)}
    assert {"home", "explainer", "article", "glossary", "reading feed", "hub", "tag listing",
            "404"} == set(PAGE_KINDS)
    for kind in PAGE_KINDS:
        for preset in PRESETS:
            for name in ("accessibility", "best-practices"):
                assert found[f"{kind}, {preset}: {name}"].limit == 100
    assert found["explainer, mobile: performance"].limit == 90
    assert found["article, mobile: performance"].limit == 90
    assert found["home, mobile: performance"].limit is None
    assert found["explainer, desktop: performance"].limit is None
    assert all(figure.met is not False for figure in found.values())


def test_a_failing_audit_misses_the_target_and_is_named() -> None:
    [*_, seo] = figures([scores("hub", "mobile", seo=["meta-description"])])
    assert seo.name == "hub, mobile: seo" and seo.met is False
    assert "meta-description" in seo.note


def test_the_404_pages_noindex_is_by_design_but_any_other_seo_failure_is_not() -> None:
    by_design = {f.name: f for f in figures([scores("404", "mobile", seo=["is-crawlable"])])}
    assert by_design["404, mobile: seo"].limit is None
    assert "noindex" in by_design["404, mobile: seo"].note
    assert by_design["404, mobile: seo: other audits below 1"].met is True
    worse = {f.name: f for f in figures([scores("404", "mobile",
                                                seo=["is-crawlable", "document-title"])])}
    assert worse["404, mobile: seo: other audits below 1"].met is False
    assert worse["404, mobile: seo: other audits below 1"].note == "document-title"


def test_a_run_without_scores_is_reported_not_dropped() -> None:
    broken = Scores("home", "mobile", "http://127.0.0.1/", error="could not load")
    found = figures([broken])
    assert len(found) == len(CATEGORIES)
    assert all("could not load" in figure.note for figure in found)
