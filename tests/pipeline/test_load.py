"""The loader: bad content gives exact `path:line: field: message` errors, all in one pass;
good content becomes typed records; the real content of the repository loads clean."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sims
from ridgepoint.errors import ContentError, ContentErrors
from ridgepoint.load import load_site, split_front_matter
from ridgepoint.model import HubSection

REPO = Path(__file__).resolve().parents[2]
BAD = Path(__file__).parent / "fixtures" / "bad"
CASES = sorted(case.name for case in BAD.iterdir() if case.is_dir())
# The fixtures name one sim; the real list would tie them to whatever sims/ holds today.
FIXTURE_SIMS = frozenset({"batching"})

VOCABULARY = """\
tags:
  latency: {label: Latency, description: How long a reader waits.}
  prefill: {label: Prefill, description: The pass over the prompt.}
"""


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """A repository-shaped tree: the vocabulary plus `files` (path -> text or raw bytes)."""
    for path, content in {"feed/tags/_vocabulary.yaml": VOCABULARY, **files}.items():
        file = root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            file.write_bytes(content)
        else:
            file.write_text(content)
    return root


def errors_of(root: Path, sim_modules: frozenset[str] | None = None) -> list[str]:
    with pytest.raises(ContentErrors) as caught:
        load_site(root, sim_modules)
    return [str(error) for error in caught.value.errors]


@pytest.mark.parametrize("case", CASES)
def test_bad_content_gives_the_expected_errors(case: str) -> None:
    expected = (BAD / case / "expected.txt").read_text().splitlines()
    assert errors_of(BAD / case, FIXTURE_SIMS) == expected


# Characters that mean something to YAML, plus line breaks, a BOM and non-ASCII.
YAMLISH = st.text(alphabet=list("ab1-:[]{}\"'#&*!|>%@?,. \t\n\r\x85\ufeffé"), max_size=80)


@settings(max_examples=100, deadline=None)
@given(text=YAMLISH, raw=st.binary(max_size=20))
def test_any_bytes_give_content_errors_never_a_traceback(text: str, raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = write_tree(
            Path(directory),
            {
                "glossary/t.yaml": text,
                "feed/r.yaml": raw,
                "feed/tags/latency.yaml": "intro: x\n" + text,
                "content/articles/a.md": f"---\n{text}\n---\nBody.\n",
            },
        )
        try:
            load_site(root, FIXTURE_SIMS)
        except ContentErrors as exc:
            assert all("\n" not in str(error) and error.line >= 1 for error in exc.errors)


def test_every_problem_is_reported_in_one_pass() -> None:
    lines = errors_of(BAD / "many-errors", FIXTURE_SIMS)
    files = {line.split(":", 1)[0] for line in lines}
    assert files == {
        "content/articles/an-article.md",
        "content/explainers/batching.md",
        "feed/a-paper.yaml",
        "feed/tags/latency.yaml",
        "glossary/inter-token-latency.yaml",
        "glossary/time-to-first-token.yaml",
    }
    # Two problems in one file are both there: a missing field and an unknown tag.
    assert sum(line.startswith("glossary/time-to-first-token.yaml:") for line in lines) == 2


def test_a_bom_is_tolerated_and_crlf_lines_count_right(tmp_path: Path) -> None:
    term = "term: Time to first token\r\ndefinition: Until the first token.\r\ntags: [latency]\r\n"
    write_tree(tmp_path, {"glossary/ttft.yaml": "\ufeff".encode() + term.encode()})
    assert load_site(tmp_path).terms["ttft"].term == "Time to first token"
    write_tree(tmp_path, {"glossary/ttft.yaml": ("\ufeff" + term + "tags: []\r\n").encode()})
    assert errors_of(tmp_path) == [
        "glossary/ttft.yaml:4: tags: appears twice in one mapping; the last one would silently"
        " win (expected each key once)",
        "glossary/ttft.yaml:4: tags: is empty"
        " (expected a list of tags from feed/tags/_vocabulary.yaml, each once)",
    ]


def test_valid_content_becomes_typed_records(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "glossary/time-to-first-token.yaml": (
                "term: Time to first token\nabbreviation: TTFT\n"
                "definition: Until the first token.\ntags: [latency, prefill]\n"
                "related: [prefill-phase]\n"
            ),
            "glossary/prefill-phase.yaml": "term: Prefill\ndefinition: P.\ntags: [prefill]\n",
            "feed/a-paper.yaml": (
                "kind: paper\ntitle: 'A: paper'\nauthors: [Ada Lovelace, Alan Turing]\n"
                "where: OSDI 2024\nurl: https://example.org/a\nadded: 2026-11-30\n"
                "tags: [latency]\nwhy: Because.\n"
            ),
            "feed/tags/latency.yaml": (
                "intro: The wait.\npath:\n  - heading: First\n    purpose: Start.\n"
                "    readings: [a-paper]\n"
            ),
            "content/explainers/batching.md": (
                "---\ntitle: Batches\nlevel: beginner\nhook: Run it.\nsim: batching\n"
                "tags: [latency]\n---\nBody.\n"
            ),
            "content/articles/an-article.md": (
                "---\ntitle: An article\nsummary: Short.\ntags: [latency]\n"
                "published: 2026-11-01\nupdated: '2026-11-30'\n---\nBody.\n"
            ),
        },
    )
    site = load_site(tmp_path, sim_modules=FIXTURE_SIMS)
    assert list(site.tags) == ["latency", "prefill"]
    assert site.tags["prefill"].label == "Prefill"
    term = site.terms["time-to-first-token"]
    assert (term.abbreviation, term.tags, term.related) == (
        "TTFT",
        ("latency", "prefill"),
        ("prefill-phase",),
    )
    assert term.source == tmp_path / "glossary/time-to-first-token.yaml"
    assert site.terms["prefill-phase"].abbreviation is None
    reading = site.readings["a-paper"]
    assert reading.title == "A: paper"
    assert reading.added == date(2026, 11, 30)
    assert reading.authors == ("Ada Lovelace", "Alan Turing")
    assert site.hubs["latency"].path == (HubSection("First", "Start.", ("a-paper",)),)
    assert site.explainers["batching"].sim == "batching"
    article = site.articles["an-article"]
    assert (article.published, article.updated) == (date(2026, 11, 1), date(2026, 11, 30))
    assert site.tags_in_use() == ["latency", "prefill"]


def test_explainer_sims_default_to_the_sims_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sims, "sim_names", lambda: ["roofline"])
    explainer = "---\ntitle: T\nlevel: beginner\nhook: H\nsim: batching\ntags: [latency]\n---\n"
    write_tree(tmp_path, {"content/explainers/batching.md": explainer})
    assert errors_of(tmp_path) == [
        "content/explainers/batching.md:5: sim: 'batching' is not a sim module"
        " (expected one of the sims: roofline)"
    ]


def test_sims_are_not_imported_without_explainers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse() -> list[str]:
        raise AssertionError("sims imported although no explainer needs them")

    monkeypatch.setattr(sims, "sim_names", refuse)
    write_tree(tmp_path, {"glossary/t.yaml": "term: T\ndefinition: D.\ntags: [latency]\n"})
    assert list(load_site(tmp_path).terms) == ["t"]


def test_split_front_matter_gives_meta_body_and_the_body_line() -> None:
    meta, body, line = split_front_matter("---\ntitle: A\nupdated: 2026-11-30\n---\n# A\n\ntext\n")
    assert meta == {"title": "A", "updated": "2026-11-30"}
    assert (body, line) == ("# A\n\ntext\n", 5)
    assert split_front_matter("---\r\ntitle: B\r\n...\r\nbody\r\n") == (
        {"title": "B"},
        "body\r\n",
        4,
    )


def test_split_front_matter_without_front_matter_returns_the_whole_text() -> None:
    assert split_front_matter("# Title\n\n---\n") == ({}, "# Title\n\n---\n", 1)
    assert split_front_matter("") == ({}, "", 1)
    assert split_front_matter("---\n---\nBody") == ({}, "Body", 3)


def test_a_character_yaml_refuses_is_an_error_on_its_line() -> None:
    with pytest.raises(ContentErrors) as caught:
        split_front_matter("---\ntitle: A\nhook: B\x0c\n---\n", "x.md")
    assert str(caught.value) == (
        "x.md:3: yaml: character U+000C is not allowed in YAML (expected printable text)"
    )


def test_split_front_matter_reports_bad_front_matter_with_the_path() -> None:
    with pytest.raises(ContentErrors) as caught:
        split_front_matter("---\ntitle: A\n", "content/index.md")
    assert str(caught.value) == (
        "content/index.md:1: front matter: is not closed (expected a line '---' after it)"
    )
    with pytest.raises(ContentErrors) as caught:
        split_front_matter("---\ntitle: A\n  b: c\n---\n", "content/index.md")
    assert [error.line for error in caught.value.errors] == [3]


def test_content_errors_print_one_per_line_sorted_and_without_repeats() -> None:
    late = ContentError("b.yaml", 1, "tags", "is text", "a list")
    early = ContentError("a.yaml", 9, "term", "missing")
    errors = ContentErrors([late, early, late])
    assert errors.errors == [early, late]
    assert str(errors) == "a.yaml:9: term: missing\nb.yaml:1: tags: is text (expected a list)"


def run_check(*args: str) -> subprocess.CompletedProcess[str]:
    """scripts/check.py as `make check` runs it, also reporting whether MkDocs got imported."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['check.py', *{list(args)!r}]\n"
        "try:\n"
        f"    runpy.run_path({str(REPO / 'scripts/check.py')!r}, run_name='__main__')\n"
        "finally:\n"
        "    print('mkdocs imported' if 'mkdocs' in sys.modules else 'no mkdocs')\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_check_prints_every_error_and_exits_1() -> None:
    result = run_check(str(BAD / "missing-field"))
    expected = (BAD / "missing-field" / "expected.txt").read_text().splitlines()
    assert result.returncode == 1
    assert result.stderr.splitlines() == [*expected, f"check: {len(expected)} problems"]
    assert result.stdout.strip() == "no mkdocs"


def test_check_passes_on_good_content_with_a_count(tmp_path: Path) -> None:
    write_tree(tmp_path, {"glossary/t.yaml": "term: T\ndefinition: D.\ntags: [latency]\n"})
    result = run_check(str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "check: ok: 2 tags, 1 term, 0 readings, 0 hub files, 0 explainers, 0 articles",
        "no mkdocs",
    ]


def test_the_real_content_loads_clean() -> None:
    site = load_site(REPO)
    assert len(site.terms) == 10
    assert len(site.readings) == 6
    assert len(site.tags) == 20


def test_the_latency_hub_has_the_briefs_path_in_order() -> None:
    hub = load_site(REPO).hubs["latency"]
    assert [section.heading for section in hub.path] == [
        "The mental models the rest of the field assumes",
        "Current work at the depth practitioners argue about",
    ]
    assert [section.readings for section in hub.path] == [
        (
            "producing-the-worlds-cheapest-tokens",
            "introducing-system-one-models-and-jev",
            "deepseek-v4-flash-across-14-providers",
        ),
        ("sarathi-serve", "speculative-sampling", "fast-inference-speculative-decoding"),
    ]


def test_only_the_three_papers_carry_a_link_and_a_venue() -> None:
    readings = load_site(REPO).readings.values()
    assert {r.slug: (r.url, r.where) for r in readings if r.url or r.where} == {
        "sarathi-serve": ("https://arxiv.org/abs/2403.02310", "OSDI 2024"),
        "speculative-sampling": ("https://arxiv.org/abs/2302.01318", "DeepMind, arXiv 2023"),
        "fast-inference-speculative-decoding": ("https://arxiv.org/abs/2211.17192", "ICML 2023"),
    }
    assert {r.added for r in readings} == {date(2026, 11, 30)}
