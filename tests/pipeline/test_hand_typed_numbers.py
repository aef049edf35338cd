"""A figure the site's physics computes is never typed by hand in an article or explainer.

Issue 14's "46 ms" was a prose guess ("a little above" 21 ms) where the physics said 46:
such a number goes stale the day a sim changes, and nothing notices. The check reads every
article and explainer (tests/pipeline/hand_typed_numbers.py says what it reads and skips)
and fails on any time, byte size, rate or speedup written in digits outside a placeholder,
unless the source marks it `{{ cited: ... }}` (quoted from the source the sentence names) or
`{{ input: ... }}` (an input or stated assumption).
"""

from __future__ import annotations

import pytest
from hand_typed_numbers import hand_typed_figures

from tests.repo import LAYOUT, REPO

ROOT = REPO
PAGES = sorted(
    [*(LAYOUT.content / "articles").glob("*.md"), *(LAYOUT.content / "explainers").glob("*.md"),
     LAYOUT.content / "index.md"]
)

# Typed by hand, and each compared with the shared physics by the sim's own page test, but
# with no sim metric to pull it from yet. An entry names the page and the figure exactly;
# one that no longer appears fails below, so the list cannot outlive the prose.
PINNED_BY_SIM_TESTS = {
    ("content/explainers/chunked-prefill.md", "139 GB"):
        "the 70B model's streamed weight bytes; tests/sims/test_chunked_prefill.py",
    ("content/explainers/tensor-parallel.md", "16 KB"):
        "one hidden state in BF16; tests/sims/test_tensor_parallel.py",
    ("content/explainers/tensor-parallel.md", "262 KB"):
        "the all-reduce message at batch 16; tests/sims/test_tensor_parallel.py",
}


def figures(text: str) -> list[str]:
    return [figure for _, figure in hand_typed_figures(text)]


# --- The check itself, on samples -------------------------------------------------------

def test_a_hand_typed_prefill_time_is_flagged_with_its_line() -> None:
    sample = (
        "---\ntitle: Sample\n---\n\nA cached prefix is cheap to extend.\n"
        "The last 1,024 tokens take 46 ms on one H100.\n"
    )
    assert hand_typed_figures(sample) == [(6, "46 ms")]


@pytest.mark.parametrize(
    "figure",
    ["46 ms", "2.4 s", "10 µs", "8.1 GB", "131,072 bytes", "262 KB", "2.68 TB/s",
     "989 TFLOP/s", "524,288 FLOPs", "258 FLOP", "94.25 tokens per second", "50 tok/s",
     "2.3x", "2.3-2.8x", "40×"],
)
def test_every_kind_of_computed_figure_is_flagged(figure: str) -> None:
    assert figures(f"The step takes {figure} here.\n") == [figure]


@pytest.mark.parametrize(
    "sample",
    [
        # placeholders and marked figures
        "It takes {{ sim:roofline.prefill_time_s x1000 | .0f }} ms, the vendor says"
        " {{ cited: 2.4 s }}, and you set {{ input: 30 µs }} per call.\n",
        # front matter, fenced code, inline code, link targets, comments
        "---\nsummary: 46 ms of prefill\n---\n```text\n5-minute cache: 1.25 N at 2x\n```\n"
        "Run `--budget 8 GB` and read [the notes](https://example.org/2x-4x-10ms) <!-- 3 ms -->.\n",
        # model names, counts, shares, decades, products written out, words
        "Llama 3 70B on an A100-80GB reads 2,048 tokens at 90% in the 1990s;"
        " 2 x 80 x 8 x 128 x 2 is arithmetic, and two bytes per weight is a word.\n",
    ],
    ids=["placeholders-and-marks", "not-prose", "not-computed"],
)
def test_what_is_not_a_hand_typed_computed_figure_is_not_flagged(sample: str) -> None:
    assert figures(sample) == []


def test_a_misspelt_mark_does_not_excuse_its_figure() -> None:
    assert figures("Medusa-2 gave {{ cite: 2.3-2.8x }}.\n") == ["2.3-2.8x"]


def test_only_the_check_it_yourself_section_is_skipped() -> None:
    sample = (
        "## Check it yourself\n\n1. 15.01 GB at 2.68 TB/s is 5.60 ms.\n\n"
        "## What the sim leaves out\n\nA step takes 5.6 ms.\n"
    )
    assert hand_typed_figures(sample) == [(7, "5.6 ms")]


def test_a_marked_figure_still_renders_as_typed() -> None:
    """The marking costs the reader nothing: staging writes the figure unchanged."""
    from ridgepoint.prose.figures import FigureSource, render_figures

    text = "Medusa-2 gave {{ cited: 2.3-2.8x }}.\n"
    assert render_figures(text, "x.md", FigureSource(LAYOUT)) == "Medusa-2 gave 2.3-2.8x.\n"


# --- The real content ------------------------------------------------------------------

def test_no_article_or_explainer_types_a_computed_figure_by_hand() -> None:
    found = [
        f"{page.relative_to(ROOT).as_posix()}:{line}: {figure!r}"
        for page in PAGES
        for line, figure in hand_typed_figures(page.read_text(encoding="utf-8"))
        if (page.relative_to(ROOT).as_posix(), figure) not in PINNED_BY_SIM_TESTS
    ]
    assert not found, (
        "figures typed by hand: pull each from a {{ sim:... }} or {{ data:... }} placeholder,"
        " or mark it {{ cited: ... }} (quoted from the source the sentence names) or"
        " {{ input: ... }} (an input or assumption):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(("page", "figure"), sorted(PINNED_BY_SIM_TESTS))
def test_every_listed_exception_is_still_on_its_page(page: str, figure: str) -> None:
    assert figure in figures((ROOT / page).read_text(encoding="utf-8"))
