"""The loader: bad content gives exact `path:line: field: message` errors, all in one pass;
good content becomes typed records; the real content of the repository loads clean."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tracemalloc
from datetime import date
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sims
from ridgepoint.base import modeline
from ridgepoint.base.errors import ContentError, ContentErrors
from ridgepoint.content.kinds import KINDS, VOCABULARY_SCHEMA
from ridgepoint.content.kinds import VOCABULARY as VOCABULARY_PATH
from ridgepoint.content.load import load_site, split_front_matter
from ridgepoint.content.model import HubSection
from ridgepoint.content.parsememo import ParseMemo
from ridgepoint.staging.stage import check_content
from tests.limits import within
from tests.repo import LAYOUT, REPO

BAD = Path(__file__).parent / "fixtures" / "bad"
CASES = sorted(case.name for case in BAD.iterdir() if case.is_dir())
# The fixtures name one sim; the real list would tie them to whatever sims/ holds today.
FIXTURE_SIMS = frozenset({"batching"})
# Parses shared by load_cleanly's loads, in memory only: a file's parse is a pure function of
# its path and text (the memo's key), so the files an example leaves alone are not parsed
# again, as in `make serve`; the mangled one is new text and is parsed and checked afresh.
_PARSES = ParseMemo()

VOCABULARY = """\
tags:
  latency: {label: Latency, description: How long a reader waits.}
  prefill: {label: Prefill, description: The pass over the prompt.}
"""


# One valid file of every kind: the typed-records test loads it, the fuzz tests mutate it.
VALID = {
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
}


def with_modelines(files: dict[str, str | bytes]) -> dict[str, str | bytes]:
    """The vocabulary plus `files`, each YAML text starting with its schema's modeline unless
    it has one (raw bytes are left exactly as they are)."""
    tree: dict[str, str | bytes] = {}
    for path, content in {"feed/tags/_vocabulary.yaml": VOCABULARY, **files}.items():
        schema = _yaml_schema(path)
        if isinstance(content, str) and schema and not content.startswith(modeline.PREFIX):
            content = modeline.modeline(path, schema) + "\n" + content
        tree[path] = content
    return tree


def _yaml_schema(path: str) -> str | None:
    if path == VOCABULARY_PATH:
        return VOCABULARY_SCHEMA
    folder = path.rsplit("/", 1)[0]
    return next((k.schema for k in KINDS if k.folder == folder and not k.markdown), None)


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """A repository-shaped tree: the vocabulary plus `files` (path -> text or raw bytes),
    each YAML text with its modeline (see with_modelines)."""
    for path, content in with_modelines(files).items():
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


def check_fixture(case: str) -> list[ContentError]:
    """A fixture's problems as `make check` finds them: loading, then each page's rules."""
    with pytest.raises(ContentErrors) as caught:
        check_content(LAYOUT.with_content(BAD / case), LAYOUT.mkdocs_yml, FIXTURE_SIMS)
    return caught.value.errors


@pytest.mark.parametrize("case", CASES)
def test_bad_content_gives_the_expected_errors(case: str) -> None:
    expected = (BAD / case / "expected.txt").read_text().splitlines()
    assert [str(error) for error in check_fixture(case)] == expected


# Characters that mean something to YAML, plus line breaks, a BOM and non-ASCII.
YAMLISH = st.text(alphabet=list("ab1-:[]{}\"'#&*!|>%@?,. \t\n\r\x85\ufeffé"), max_size=80)


def load_cleanly(files: dict[str, str | bytes]) -> None:
    """Load a tree of `files` (plus the vocabulary): it must load, or fail with clean
    ContentErrors, each naming a file of the tree and a line inside it, on one line of text.
    Anything else (a traceback, a hang) fails the test."""
    tree = with_modelines(files)
    with tempfile.TemporaryDirectory() as directory:
        root = write_tree(Path(directory), tree)
        try:
            with within(10, "loading"):
                load_site(root, FIXTURE_SIMS, memo=_PARSES)
        except ContentErrors as exc:
            assert exc.errors
            for error in exc.errors:
                assert error.path in tree, error
                content = tree[error.path]
                lines = (content.encode() if isinstance(content, str) else content).count(b"\n")
                assert 1 <= error.line <= lines + 1, error
                assert error.field and error.message, error
                assert "\n" not in str(error) and "Traceback" not in str(error), error


@settings(max_examples=100, deadline=None)
@given(text=YAMLISH, raw=st.binary(max_size=20))
def test_any_bytes_give_content_errors_never_a_traceback(text: str, raw: bytes) -> None:
    load_cleanly({
        "glossary/t.yaml": text,
        "feed/r.yaml": raw,
        "feed/tags/latency.yaml": "intro: x\n" + text,
        "content/articles/a.md": f"---\n{text}\n---\nBody.\n",
    })


# What a mutation may insert: YAML's own syntax (anchors, aliases, merge keys, tags, block
# scalars, flow collections, document markers), whitespace YAML is strict about (tabs, a BOM,
# line separators), characters it refuses, long and non-ASCII text, and repeated keys.
SNIPPETS = [
    "&a ", "*a", "&b [*a, *a, *a]", "<<: *a\n", "!!python/object:os.system ", "!!binary ",
    "!!str ", "? ", ": ", "- ", "{", "}", "[", "]", ",", "'", '"', "#", "|\n  ", ">-\n  ",
    "---\n", "...\n", "\t", "\ufeff", "\r\n", "\u2028", "\x85", "\x00", "\x1b", "\ud7ff",
    "é", "日本語", "😀", "\u202e", "x" * 5000, "term: again\n", "tags: [latency]\n",
    "2026-02-30", "1e400", "0x1F", "~", "null", "yes", ".nan",
]
MUTATION = st.tuples(
    st.floats(0, 1), st.sampled_from(["insert", "delete", "repeat"]), st.sampled_from(SNIPPETS)
)


def mutate(text: str, mutations: list[tuple[float, str, str]]) -> str:
    """`text` with each mutation applied at a relative position: insert a snippet, delete up
    to 20 characters, or repeat the line there (a duplicate key, usually)."""
    for where, kind, snippet in mutations:
        at = int(where * len(text))
        if kind == "insert":
            text = text[:at] + snippet + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1 + len(snippet) % 20 :]
        else:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            line = text[start : end if end >= 0 else len(text)]
            text = text[:start] + line + "\n" + text[start:]
    return text


@settings(max_examples=120, deadline=None)
@given(
    target=st.sampled_from(sorted(VALID)),
    mutations=st.lists(MUTATION, min_size=1, max_size=4),
    raw_byte=st.none() | st.tuples(st.floats(0, 1), st.binary(min_size=1, max_size=2)),
)
def test_mutated_valid_content_gives_clean_errors(
    target: str, mutations: list[tuple[float, str, str]], raw_byte: tuple[float, bytes] | None
) -> None:
    """Valid files of every kind, each mutated a little: the edits an editor might make by
    mistake, and worse. Optionally a few raw bytes (often not UTF-8) are spliced in."""
    content: str | bytes = mutate(VALID[target], mutations)
    if raw_byte is not None:
        encoded = content.encode("utf-8", "surrogatepass")
        at = int(raw_byte[0] * len(encoded))
        content = encoded[:at] + raw_byte[1] + encoded[at:]
    load_cleanly({**VALID, target: content})


# Random YAML-shaped data: the fields the schemas know and others, any Unicode text (long
# strings too), numbers, booleans, nulls, nested lists and mappings.
KEYS = st.sampled_from(
    ["term", "definition", "tags", "related", "abbreviation", "kind", "title", "authors",
     "added", "why", "url", "where", "intro", "path", "heading", "purpose", "readings",
     "level", "hook", "sim", "summary", "published", "updated"]
) | st.text(max_size=12)
SCALARS = (
    st.text(max_size=30) | st.text(min_size=2000, max_size=4000) | st.integers()
    | st.floats(allow_nan=True) | st.booleans() | st.none() | st.just("latency")
)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=20,
)


def shared(value: object, fanout: int, levels: int) -> object:
    """`value` repeated `fanout` times, `levels` deep, every copy one shared object: PyYAML
    dumps it as anchors and aliases, a "billion laughs" once fanout and levels grow."""
    for _ in range(levels):
        value = [value] * fanout
    return value


# Long strings make generation slow on a busy machine; that is expected, not a problem.
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=st.dictionaries(KEYS, DATA, max_size=8),
    alias=st.none() | st.tuples(KEYS, DATA, st.integers(1, 9), st.integers(1, 12)),
    flow=st.booleans(),
    bom=st.booleans(),
    front_matter=st.booleans(),
)
def test_random_yaml_gives_clean_errors(
    document: dict, alias: tuple | None, flow: bool, bom: bool, front_matter: bool
) -> None:
    """Random documents as a glossary term, a reading, a hub and front matter: with aliases
    (up to 9**12 values once expanded), flow or block style, with or without a BOM."""
    if alias is not None:
        key, value, fanout, levels = alias
        document[key] = shared(value, fanout, levels)
    text = ("\ufeff" if bom else "") + yaml.safe_dump(
        document, default_flow_style=flow, allow_unicode=True
    )
    load_cleanly({
        "glossary/t.yaml": text,
        "feed/r.yaml": text,
        "feed/tags/latency.yaml": text,
        ("content/articles/a.md" if front_matter else "glossary/u.yaml"): (
            f"---\n{text}---\nBody.\n" if front_matter else text
        ),
    })


def test_a_billion_laughs_is_refused_quickly_and_in_little_memory(tmp_path: Path) -> None:
    """Nine levels of nine aliases in every field: 9**9 values if expanded. The loader
    refuses it at once, without building or walking the expansion."""
    bomb = yaml.safe_dump({field: shared("lol", 9, 9) for field in ("term", "definition")})
    write_tree(tmp_path, {"glossary/t.yaml": bomb + "tags: [latency]\n"})
    tracemalloc.start()
    try:
        with within(5, "loading a billion laughs"):
            errors = errors_of(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert errors == [
        "glossary/t.yaml:6: yaml: holds more than 10000 values"
        " (expected at most 32 levels and 10000 values, an alias counting in full)"
    ]
    assert peak < 20_000_000


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
    term = (
        modeline.modeline("glossary/ttft.yaml", "term.schema.json") + "\r\n"
        "term: Time to first token\r\ndefinition: Until the first token.\r\ntags: [latency]\r\n"
    )
    write_tree(tmp_path, {"glossary/ttft.yaml": "\ufeff".encode() + term.encode()})
    assert load_site(tmp_path).terms["ttft"].term == "Time to first token"
    write_tree(tmp_path, {"glossary/ttft.yaml": ("\ufeff" + term + "tags: []\r\n").encode()})
    assert errors_of(tmp_path) == [
        "glossary/ttft.yaml:5: tags: appears twice in one mapping; the last one would silently"
        " win (expected each key once)",
        "glossary/ttft.yaml:5: tags: is empty"
        " (expected a list of tags from feed/tags/_vocabulary.yaml, each once)",
    ]


def test_lines_are_counted_as_editors_count_them(tmp_path: Path) -> None:
    """YAML also ends a line at NEL, LS, PS and a lone CR; an error still names the line an
    editor shows, counted by newlines."""
    term = 'term: "a\x85b\u2028c\u2029d\re"\ndefinition: D.\ntags: [latency]\ntags: [x]\n'
    write_tree(tmp_path, {"glossary/t.yaml": term})
    assert [error.split(": ", 1)[0] for error in errors_of(tmp_path)] == ["glossary/t.yaml:5"] * 2


def test_valid_content_becomes_typed_records(tmp_path: Path) -> None:
    write_tree(tmp_path, VALID)
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
        f"    runpy.run_path({str(LAYOUT.scripts / 'check.py')!r}, run_name='__main__')\n"
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
        "check: ok: 2 tags, 1 term, 0 readings, 0 hub files, 0 explainers, 0 articles, 0 GPUs, "
            "0 models, 0 calibration sets, 0 kernel profiles, 0 engine profiles",
        "no mkdocs",
    ]


def test_the_real_content_loads_clean() -> None:
    site = load_site(REPO)
    # The brief's 10 terms, 6 readings and 20 tags; issue 18's 12 terms, 3 readings and 2 tags
    # (kv-cache, queueing); issue 19's terms and readings (DistServe is issue 18's too) and 3
    # tags (quantization, moe, disaggregation).
    assert len(site.terms) == 10 + 12 + len(ISSUE_19_TERMS)
    assert len(site.readings) == 6 + len(LOAD_READINGS | ISSUE_19_READINGS.keys())
    assert len(site.tags) == 20 + 2 + 3
    assert set(site.terms) >= ISSUE_19_TERMS and set(ISSUE_19_READINGS) <= set(site.readings)


def test_the_latency_hub_has_the_briefs_path_in_order() -> None:
    """The brief's two sections open the path, as the brief orders them; issue 19's section
    on the choices that set latency follows."""
    hub = load_site(REPO).hubs["latency"]
    assert [section.heading for section in hub.path] == [
        "The mental models the rest of the field assumes",
        "Current work at the depth practitioners argue about",
        "Under load, the queue and the KV cache decide the wait",  # issue 18
        "The choices that set latency",  # issue 19
    ]
    assert [section.readings for section in hub.path] == [
        (
            "producing-the-worlds-cheapest-tokens",
            "introducing-system-one-models-and-jev",
            "deepseek-v4-flash-across-14-providers",
        ),
        ("sarathi-serve", "speculative-sampling", "fast-inference-speculative-decoding"),
        ("distserve", "pagedattention", "vidur"),
        ("give-me-bf16-or-give-me-death", "splitwise", "mooncake"),
    ]


def test_the_moe_hub_is_a_path_of_its_own() -> None:
    hub = load_site(REPO).hubs["moe"]
    assert [section.readings for section in hub.path] == [
        ("sparsely-gated-mixture-of-experts", "switch-transformers"),
        ("deepseek-v3-technical-report",),
    ]


def test_only_the_papers_carry_a_link_and_a_venue() -> None:
    """The brief's three papers, and issues 18's and 19's readings, each with the link and
    venue their sources give; the brief's other readings have neither."""
    readings = load_site(REPO).readings.values()
    assert {r.slug: (r.url, r.where) for r in readings if r.url or r.where} == {
        "sarathi-serve": ("https://arxiv.org/abs/2403.02310", "OSDI 2024"),
        "speculative-sampling": ("https://arxiv.org/abs/2302.01318", "DeepMind, arXiv 2023"),
        "fast-inference-speculative-decoding": ("https://arxiv.org/abs/2211.17192", "ICML 2023"),
        # issue 18's papers
        "pagedattention": ("https://arxiv.org/abs/2309.06180", "SOSP 2023"),
        "vidur": ("https://arxiv.org/abs/2405.05465", "MLSys 2024"),
        **ISSUE_19_READINGS,  # DistServe among them
    }
    new = LOAD_READINGS | ISSUE_19_READINGS.keys()
    assert {r.added for r in readings if r.slug not in new} == {date(2026, 11, 30)}
    assert {r.added for r in readings if r.slug in new} == {date(2026, 12, 1)}


LOAD_READINGS = {"distserve", "pagedattention", "vidur"}
ISSUE_19_TERMS = {
    "mixture-of-experts", "active-parameters", "expert-parallelism", "all-to-all",
    "quantization", "fp8", "fp4", "disaggregated-serving", "kv-transfer",
    "multi-token-prediction",
}
ISSUE_19_READINGS = {
    "distserve": ("https://arxiv.org/abs/2401.09670", "OSDI 2024"),
    "splitwise": ("https://arxiv.org/abs/2311.18677", "ISCA 2024"),
    "mooncake": ("https://www.usenix.org/conference/fast25/presentation/qin",
                 "FAST 2025 (Best Paper)"),
    "give-me-bf16-or-give-me-death": ("https://arxiv.org/abs/2411.02355", "ACL 2025"),
    "sparsely-gated-mixture-of-experts": ("https://arxiv.org/abs/1701.06538", "ICLR 2017"),
    "switch-transformers": ("https://arxiv.org/abs/2101.03961",
                            "Journal of Machine Learning Research, 2022"),
    "deepseek-v3-technical-report": ("https://arxiv.org/abs/2412.19437", "arXiv 2024"),
    "eagle-3": ("https://arxiv.org/abs/2503.01840", "NeurIPS 2025"),
}
