"""`make new`: every kind scaffolds a file that `make check` refuses until its placeholders are
filled and accepts once they are; an explainer's new sim passes the sim contract tests;
anything `make new` cannot write is refused in one line, with nothing written."""

from __future__ import annotations

import re
import subprocess
from datetime import date
from pathlib import Path

import pytest
import yaml

from ridgepoint.base import modeline
from ridgepoint.content.kinds import KINDS, VOCABULARY
from tests.clone import clone, run
from tests.repo import REPO

# What an editor types into the scaffold's empty fields, by kind: a field that is empty once
# scaffolded gets this value. A kind added to KINDS needs its line here (a test says so).


def figure(path: str, value: str) -> dict[str, str]:
    """A catalogue figure's three fields: its value, its source and its row."""
    return {f"{path}.value": value, f"{path}.source": "sheet", f"{path}.row": "the row it is in"}


FILLS: dict[str, dict[str, str]] = {
    "term": {"term": "Queue delay", "definition": "The wait before a request's prefill starts.",
             "tags": "[latency]"},
    "reading": {"kind": "paper", "title": "A reading to come", "authors": "[Ada Lovelace]",
                "tags": "[latency]", "why": "It says where the wait goes."},
    "hub": {"intro": "One line about the tag."},
    "article": {"title": "An article to come", "summary": "What it argues, in a sentence.",
                "tags": "[latency]"},
    "explainer": {"title": "When the reply arrives", "level": "beginner",
                  "hook": "Drag the gap between tokens.", "tags": "[latency]"},
    # The catalogue's kinds nest their figures: a dotted path names a nested field.
    "gpu": {"name": "A test GPU 80 GB", "sources": "{sheet: {title: A datasheet}}",
            **figure("dense_flops.bf16", "100 TFLOP/s"), **figure("memory.capacity", "80 GB"),
            **figure("memory.bandwidth", "2 TB/s"), "scale_up.link": "no NVLink",
            "scale_up.topology": "switch", **figure("scale_up.bandwidth_per_direction", "32 GB/s"),
            **figure("scale_up.gpus", "1"), "kernels": "ada"},
    "model": {"name": "A test model", "config_json.title": "Its config.json",
              "config.hidden_size": "1024", "config.num_hidden_layers": "2",
              "config.num_attention_heads": "8", "config.vocab_size": "32000",
              "config.intermediate_size": "4096"},
    "calibration": {"publication.title": "A paper", "measured_by": "Its authors, on an H100",
                    "points[0].key": "a-test-point", "points[0].kind": "attention",
                    "points[0].what": "Attention forward", "points[0].gpu": "h100",
                    "points[0].where": "its table 1", "points[0].measured_ms": "1.5",
                    "points[0].band": "0.15",
                    "points[0].case": "{heads: 16, head_dim: 128, tokens: 1024}"},
    # By hand, a profile takes another's constants (its own are written by `make fit`).
    "kernels": {"name": "A test GPU's kernels, taken from Hopper's", "like": "hopper",
                "assumption": "No kernels of it were measured; it is taken to reach the "
                              "shares of its peaks that Hopper's kernels reach."},
    "engine": {"name": "A test engine", "version": "v1", "sources": "{code: {title: Its code}}",
               **{f"{setting}.{field}": value for setting, given in (
                   ("admission", "preempt"), ("token_budget", "8192"), ("max_batch", "256"),
                   ("cuda_graphs", "256"), ("all_reduce", "custom"), ("expert_exchange", "gather"))
                  for field, value in (("value", given), ("source", "code"),
                                       ("row", "its defaults"))},
               "step_overhead.graph_us": "10", "step_overhead.eager_us": "100",
               "step_overhead.source": "assumed", "request_overhead.ms": "5",
               "request_overhead.source": "assumed"},
}
SLUG = "queue-delay"
# An empty field as `make new` writes it (an optional one commented out with "# "): its
# indent, a list item's dash, the key, an empty list, the comment saying what belongs there.
FIELD = re.compile(
    r"^(?P<indent> *)(?P<dash>- )?(?P<key>[a-z_0-9]+):(?: \[\])?(?P<comment>  #.*)?$"
)


def new(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(root, "scripts/new.py", *args)


def fill(text: str, values: dict[str, str]) -> tuple[str, set[str]]:
    """The text with every empty field named in `values` given its value (a nested field by
    its path as content errors name it, `points[0].key`; an optional one uncommented), and
    the paths filled."""
    filled: set[str] = set()
    lines: list[str] = []
    parents: list[tuple[int, str]] = []  # (indent, key) of the fields enclosing this line
    for line in text.split("\n"):
        found = FIELD.match(line.removeprefix("# "))
        if found:
            indent = len(found["indent"]) + (2 if found["dash"] else 0)
            while parents and parents[-1][0] >= indent:
                parents.pop()
            if found["dash"] and parents:  # the first item of a list, as errors name it
                parents[-1] = (parents[-1][0], f"{parents[-1][1]}[0]")
            path = ".".join([key for _, key in parents] + [found["key"]])
            parents.append((indent, found["key"]))
            if path in values:
                line = (f"{found['indent']}{found['dash'] or ''}{found['key']}: {values[path]}"
                        f"{found['comment'] or ''}")
                filled.add(path)
        lines.append(line)
    return "\n".join(lines), filled


def free_tag(root: Path) -> str:
    """A tag of the vocabulary that has no hub file yet."""
    tags = yaml.safe_load((root / VOCABULARY).read_text())["tags"]
    return next(tag for tag in tags if not (root / "feed" / "tags" / f"{tag}.yaml").exists())


def required(kind_key: str) -> set[str]:
    from ridgepoint.content.schemafiles import resolve, schemas

    kind = next(kind for kind in KINDS if kind.key == kind_key)
    return set(resolve(kind.schema, schemas()[kind.schema])[1]["required"])


def test_every_kind_can_be_scaffolded() -> None:
    assert {kind.key for kind in KINDS} == set(FILLS)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], date]:
    """A clone with one file of every kind made by `make new` (and its placeholders left),
    the path each went to, and the day they were made."""
    root = clone(tmp_path_factory.mktemp("scaffold") / "repo")
    before = date.today()
    written: dict[str, str] = {}
    for key in FILLS:
        slug = free_tag(root) if key == "hub" else SLUG
        result = new(root, key, slug, "")
        assert result.returncode == 0, result.stderr
        written[key] = result.stdout.splitlines()[0].removeprefix("new: wrote ")
    assert before == date.today(), "the day changed while scaffolding: run again"
    return root, written, before


def test_a_scaffolded_yaml_file_starts_with_its_modeline(scaffolded) -> None:
    root, written, _ = scaffolded
    for key, path in written.items():
        kind = next(kind for kind in KINDS if kind.key == key)
        first = (root / path).read_text().split("\n")[0]
        assert first == (modeline.modeline(path, kind.schema) if not kind.markdown else "---")


def test_a_scaffold_has_todays_dates_and_the_allowed_values_as_comments(scaffolded) -> None:
    root, written, today = scaffolded
    term = (root / written["term"]).read_text()
    tags = yaml.safe_load((root / VOCABULARY).read_text())["tags"]
    comments = " ".join(line for line in term.split("\n") if line.lstrip().startswith("#"))
    assert all(tag in comments for tag in tags), "every tag of the vocabulary is listed"
    assert "time-to-first-token" in comments, "and every term, for related"
    reading = (root / written["reading"]).read_text()
    assert f"added: {today.isoformat()}" in reading
    assert "one of paper, article, talk, interactive, video, book, code" in reading
    article = (root / written["article"]).read_text()
    assert f"published: {today.isoformat()}" in article
    assert f"updated: {today.isoformat()}" in article
    explainer = (root / written["explainer"]).read_text()
    assert "sim: queue_delay" in explainer and "```sim\nmodule: queue_delay\n```" in explainer


def test_make_check_names_every_placeholder_until_it_is_filled(scaffolded) -> None:
    root, written, _ = scaffolded
    result = run(root, "scripts/check.py")
    assert result.returncode == 1
    reported = {(line.split(":")[0], line.split(": ")[1]) for line in result.stderr.splitlines()
                if ": " in line and not line.startswith("check:")}
    expected = {(written[key], field) for key, values in FILLS.items() for field in values}
    assert reported == expected


def test_filled_scaffolds_of_every_kind_pass_make_check(scaffolded) -> None:
    root, written, _ = scaffolded
    for key, path in written.items():
        text, filled = fill((root / path).read_text(), FILLS[key])
        top = {path.split(".")[0].split("[")[0] for path in filled}
        assert filled == set(FILLS[key]) and top | _prefilled(key) >= required(key), key
        (root / path).write_text(text)
    result = run(root, "scripts/check.py")
    assert result.returncode == 0, result.stderr
    real = _counts(run(REPO, "scripts/check.py", str(REPO)).stdout)
    assert _counts(result.stdout) == {noun: n + (noun != "tag") for noun, n in real.items()}


def _prefilled(key: str) -> set[str]:
    """Required fields `make new` fills itself: dates, and an explainer's sim."""
    return {"explainer": {"sim"}, "reading": {"added"},
            "article": {"published", "updated"}}.get(key, set())


def _counts(line: str) -> dict[str, int]:
    """`check: ok: 20 tags, 1 hub file, ...` -> {"tag": 20, "hub file": 1, ...}."""
    found = re.findall(r"(\d+) ([a-z ]+?)s?(?=,|$)", line.strip())
    return {noun: int(n) for n, noun in found}


@pytest.mark.node
def test_the_new_sim_passes_the_sim_contract_tests(scaffolded) -> None:
    """Every test of tests/sims/ that runs per sim, for the scaffolded one, and the contract's
    own tests; the cross-runtime test runs it under Pyodide too."""
    root, written, _ = scaffolded
    assert (root / "sims" / "queue_delay.py").is_file()
    tests = ["tests/sims/test_contract.py", "tests/sims/test_all_sims.py",
             "tests/sims/test_properties.py", "tests/sims/test_cross_runtime.py"]
    result = run(root, "-m", "pytest", "-v", "-p", "no:cacheprovider", *tests,
                 "-k", "queue_delay or test_contract", "-m", "node or not node")
    assert result.returncode == 0, result.stdout[-3000:]
    passed = [line for line in result.stdout.splitlines() if line.endswith("PASSED")
              or " PASSED " in line]
    for test in tests:
        per_sim = "" if test.endswith("test_contract.py") else "[queue_delay"
        assert any(line.startswith(test) and per_sim in line for line in passed), test
    assert "failed" not in result.stdout.strip().splitlines()[-1]


# Refusals run against the repository itself: nothing is written.


@pytest.mark.parametrize(("args", "message"), [
    (("term", "time-to-first-token"), "glossary/time-to-first-token.yaml already exists"),
    (("term", "Time To First Token"), "SLUG='Time To First Token' is not a slug: lowercase "
     "letters and digits, words joined by single hyphens, e.g. time-to-first-token"),
    (("gpus", "h100"), "KIND='gpus' is not a kind of content: one of "
     "term|reading|hub|explainer|article|gpu|model|calibration|kernels"),
    (("hub", "no-such-tag"), "'no-such-tag' is not a tag of feed/tags/_vocabulary.yaml: add "
     "it there first"),
    (("explainer", "batching"), "content/explainers/batching.md already exists"),
    (("explainer", "spec-sampling"), "sims/spec_sampling.py already exists: pass "
     "SIM=spec_sampling to explain it"),
    (("explainer", "2-step"), "'2_step' cannot be a module name (it must start with a letter "
     "and not be a Python keyword): name one with SIM="),
    (("explainer", "new-one", "no_such_sim"), "SIM='no_such_sim' is not a sim module: one of "),
    (("term",), "usage: make new KIND=<kind> SLUG=<slug> [SIM=<module>]"),
])
def test_make_new_refuses_in_one_line_and_writes_nothing(args: tuple[str, ...],
                                                         message: str) -> None:
    before = _status()
    result = new(REPO, *args)
    assert (result.returncode, result.stdout) == (2, "")
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.removeprefix("make new: ").startswith(message), result.stderr
    assert _status() == before


def _status() -> str:
    """What git sees changed in the repository: a file written by `make new` shows here."""
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout
