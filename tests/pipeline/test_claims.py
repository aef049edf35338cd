"""Claims the build checks: `{{ claim: ... | words }}` shows its words while its comparison of
computed figures holds, and fails the page with the values when it does not
(ridgepoint.prose.claims).

Issue 36 found "about twice as many" beside a figure that had become a third fewer: the
words around a computed figure went stale when the physics moved. These tests hold the
mechanism that keeps them honest: every form, true and false; a claim that held failing,
with the values, once the figures it compares change; malformed claims; lines; fenced code;
make check and staging; the hand-typed-number check reading a claim's words.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hand_typed_numbers import hand_typed_figures

from ridgepoint.base.errors import ContentErrors
from ridgepoint.base.layout import Layout
from ridgepoint.prose.figures import FigureSource, render_figures
from ridgepoint.staging.stage import check_content, stage_site
from tests.pipeline.conftest import sample_tree
from tests.repo import LAYOUT

# A toy sim's summary, per input set; tests change it to move the physics under a claim.
TOY = {
    (): {"wait_s": 0.279, "gap_s": 0.030, "label": "memory", "zero": 0.0},
    (("rate", "20"),): {"wait_s": 2.347, "gap_s": 0.031, "label": "memory", "zero": 0.0},
}


def runner(values: dict[tuple[tuple[str, str], ...], dict[str, Any]]):
    def run(module: str, inputs: dict[str, str]) -> dict[str, Any]:
        if module != "toy":
            raise LookupError(f"no sim named {module!r}")
        key = tuple(sorted(inputs.items()))
        if key not in values:
            raise ValueError(f"rate: expected 2 or 20, got {inputs}")
        return {"summary": dict(values[key]), "charts": []}

    return run


@pytest.fixture
def root(tmp_path: Path) -> Layout:
    """A content tree holding one experiment's results."""
    layout = LAYOUT.with_content(tmp_path)
    layout.experiments.mkdir(parents=True)
    result = {"delivery": {"sse": {"ttft_ms": 12.0}, "buffered": {"ttft_ms": 480.0}}}
    (layout.experiments / "streaming.json").write_text(json.dumps(result))
    return layout


def render(root: Layout, text: str, values=TOY) -> str:
    return render_figures(text, "content/explainers/x.md", FigureSource(root, runner(values)))


def errors(root: Layout, text: str, values=TOY) -> list[str]:
    with pytest.raises(ContentErrors) as caught:
        render(root, text, values)
    return [str(error) for error in caught.value.errors]


HIGH = "sim:toy.wait_s rate=20"
LOW = "sim:toy.wait_s"

# (claim, holds): every form, once true and once false.
FORMS = [
    (f"{HIGH} > {LOW}", True), (f"{LOW} > {HIGH}", False),
    (f"{LOW} < {HIGH}", True), (f"{HIGH} < {LOW}", False),
    (f"{HIGH} >= 2.347", True), (f"{HIGH} >= 2.35", False),
    (f"{LOW} <= 0.279", True), (f"{LOW} <= 0.27", False),
    (f"{HIGH} / {LOW} in 7..10", True), (f"{HIGH} / {LOW} in 9..10", False),
    (f"{HIGH} / {LOW} > 8", True), (f"{HIGH} / {LOW} > 9", False),
    (f"{HIGH} - {LOW} in 2..2.1", True), (f"{HIGH} - {LOW} in 0..2", False),
    (f"{LOW} in 0.2..0.3", True), (f"{LOW} in 0.3..0.4", False),
    (f"{LOW} x1000 in 279..279", True), (f"{LOW} x1000 in 280..300", False),
    ("sim:toy.gap_s rate=20 / sim:toy.gap_s in 0.95..1.05", True),
    ("sim:toy.gap_s rate=20 / sim:toy.gap_s in 1.05..2", False),
    ("data:streaming.delivery.buffered.ttft_ms / data:streaming.delivery.sse.ttft_ms in 30..50",
     True),
    ("data:streaming.delivery.buffered.ttft_ms / data:streaming.delivery.sse.ttft_ms < 30",
     False),
    (f"10 > {HIGH}", True), (f"1 > {HIGH}", False),
    (f"{HIGH} / {LOW} > sim:toy.gap_s rate=20 / sim:toy.gap_s", True),
    (f"{HIGH} / {LOW} < sim:toy.gap_s rate=20 / sim:toy.gap_s", False),
    (f"{HIGH} - {LOW} >= 4 / 2", True), (f"{HIGH} - {LOW} > 4.2 / 2", False),
    (f"{LOW} / 0.5 in 0.5..0.6", True), ("2 - 1 in 2..3", False),
]


@pytest.mark.parametrize(("claim", "holds"), FORMS, ids=[claim for claim, _ in FORMS])
def test_each_form_shows_its_words_when_true_and_fails_when_false(
    root: Layout, claim: str, holds: bool
) -> None:
    text = f"The slowest wait {{{{ claim: {claim} | grows about eightfold }}}} at 20.\n"
    if holds:
        assert render(root, text) == "The slowest wait grows about eightfold at 20.\n"
    else:
        [error] = errors(root, text)
        assert error.startswith(
            'content/explainers/x.md:1: claim: claim "grows about eightfold" is false: '
        )


def test_a_false_claim_states_its_words_both_figures_the_ratio_and_the_range(
    root: Layout,
) -> None:
    text = f"It {{{{ claim: {HIGH} / {LOW} in 9..10 | grows about tenfold }}}}.\n"
    assert errors(root, text) == [
        'content/explainers/x.md:1: claim: claim "grows about tenfold" is false:'
        " sim:toy.wait_s rate=20 = 2.347 / sim:toy.wait_s = 0.279 = 8.412,"
        " expected within 9..10"
    ]


def test_a_false_comparison_states_both_figures(root: Layout) -> None:
    text = f"It {{{{ claim: {LOW} x1000 > {HIGH} x1000 | is longer }}}}.\n"
    assert errors(root, text) == [
        'content/explainers/x.md:1: claim: claim "is longer" is false:'
        " sim:toy.wait_s x1000 = 279, expected > sim:toy.wait_s rate=20 x1000 = 2347"
    ]


def test_a_ratio_against_a_ratio_states_all_four_figures(root: Layout) -> None:
    text = (f"The gap {{{{ claim: sim:toy.gap_s rate=20 / sim:toy.gap_s > {HIGH} / {LOW}"
            " | grows faster than the wait }}.\n")
    assert errors(root, text) == [
        'content/explainers/x.md:1: claim: claim "grows faster than the wait" is false:'
        " sim:toy.gap_s rate=20 = 0.031 / sim:toy.gap_s = 0.03 = 1.033,"
        " expected > sim:toy.wait_s rate=20 = 2.347 / sim:toy.wait_s = 0.279 = 8.412"
    ]


def test_a_difference_and_a_band_state_their_values(root: Layout) -> None:
    text = (f"{{{{ claim: {HIGH} - {LOW} in 0..1 | a little more }}}}\n"
            f"{{{{ claim: {LOW} in 1..2 | about a second }}}}\n")
    assert errors(root, text) == [
        'content/explainers/x.md:1: claim: claim "a little more" is false:'
        " sim:toy.wait_s rate=20 = 2.347 - sim:toy.wait_s = 0.279 = 2.068, expected within 0..1",
        'content/explainers/x.md:2: claim: claim "about a second" is false:'
        " sim:toy.wait_s = 0.279, expected within 1..2",
    ]


def test_a_claim_that_held_fails_with_the_new_values_when_the_physics_moves(
    root: Layout,
) -> None:
    text = ("---\ntitle: Goodput\n---\n\nPast capacity the slowest wait\n"
            f"{{{{ claim: {HIGH} / {LOW} in 7..10 | grows about eightfold }}}}.\n")
    assert render(root, text).endswith("the slowest wait\ngrows about eightfold.\n")
    moved = {key: dict(summary) for key, summary in TOY.items()}
    moved[(("rate", "20"),)]["wait_s"] = 5.6  # a later change to the physics
    assert errors(root, text, moved) == [
        'content/explainers/x.md:6: claim: claim "grows about eightfold" is false:'
        " sim:toy.wait_s rate=20 = 5.6 / sim:toy.wait_s = 0.279 = 20.07,"
        " expected within 7..10"
    ]


def test_a_claim_without_words_shows_nothing_and_is_named_by_its_comparison(
    root: Layout,
) -> None:
    assert render(root, f"Wait.{{{{ claim: {HIGH} > {LOW} }}}}\n") == "Wait.\n"
    assert errors(root, f"Wait.{{{{ claim: {LOW} > {HIGH} }}}}\n") == [
        f'content/explainers/x.md:1: claim: claim "{LOW} > {HIGH}" is false:'
        " sim:toy.wait_s = 0.279, expected > sim:toy.wait_s rate=20 = 2.347"
    ]


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        ("| rises", "an empty claim"),
        (f"{HIGH} | rises", "states no comparison"),
        (f"{HIGH} >> {LOW} | rises", "cannot read '>>' where a comparison belongs"),
        (f"{HIGH} = {LOW} | rises", "cannot read '=' where a comparison belongs"),
        (f"{HIGH} / | rises", "ends where a figure or a number belongs"),
        (f"{HIGH} > | rises", "ends where a figure or a number belongs"),
        (f"eight > {LOW} | rises", "cannot read 'eight' where a figure or a number belongs"),
        (f"{HIGH} in 7-10 | rises", "'in' needs a range LO..HI, not '7-10'"),
        (f"{HIGH} in | rises", "'in' needs a range LO..HI, not 'nothing'"),
        (f"{HIGH} in 10..7 | rises", "the range 10..7 is empty"),
        (f"{HIGH} > {LOW} > 1 | rises", "cannot read '> 1' after the comparison"),
        (f"{HIGH} / sim:toy.zero > 1 | rises", "sim:toy.zero = 0: cannot divide by zero"),
        ("sim:toy.label > 1 | rises", "sim:toy.label is 'memory', not a number"),
        ("sim:toy.speed > 1 | rises", "sim toy has no metric 'speed'"),
        ("sim:nope.wait_s > 1 | rises", "no sim named 'nope'"),
        ("sim:toy.wait_s rate=3 > 1 | rises", "rate: expected 2 or 20"),
        ("sim:toy.wait_s fast > 1 | rises", "cannot read 'fast' (expected input=value"),
        ("sim:toy > 1 | rises", "'toy' is not <module>.<metric>"),
        ("data:streaming.delivery.ws.ttft_ms > 1 | rises",
         "streaming.delivery has no key 'ws'"),
        ("data:missing.x > 1 | rises", "no result file content/data/experiments/missing.json"),
    ],
)
def test_a_malformed_claim_names_its_line_the_claim_and_the_problem(
    root: Layout, claim: str, message: str
) -> None:
    placeholder = f"{{{{ claim: {claim} }}}}"
    [error] = errors(root, f"# Title\n\nThe wait {placeholder} here.\n")
    assert error.startswith(f"content/explainers/x.md:3: claim: {placeholder}: {message}")
    assert error.endswith("(expected {{ claim: <term> [/ or - <term>] (> or < or >= or <=)"
                          " <term> [/ or - <term>] | <words> }} or {{ claim: <term>"
                          " [/ or - <term>] in LO..HI | <words> }}, a term being"
                          " sim:<module>.<metric> [input=value ...] [x<factor>],"
                          " data:<experiment>.<key>... or a number)")


def test_every_bad_claim_and_figure_of_a_page_is_reported_in_one_pass(root: Layout) -> None:
    text = (f"{{{{ claim: {LOW} > {HIGH} | rises }}}}\nfine\n{{{{ sim:toy.nope }}}}\n"
            f"{{{{ claim: {HIGH} in 1..2 | about one }}}} and {{{{ claim: {HIGH} ! | x }}}}\n")
    found = [(line.split(":")[1], line.split(":")[2].strip()) for line in errors(root, text)]
    assert found == [("1", "claim"), ("3", "figure"), ("4", "claim"), ("4", "claim")]


def test_claims_inside_fenced_code_are_left_alone(root: Layout) -> None:
    text = (f"```markdown\n{{{{ claim: {LOW} > {HIGH} | rises }}}}\n```\n"
            f"~~~\n{{{{ claim: nonsense }}}}\n~~~\n")
    assert render(root, text) == text


def test_a_claim_in_the_front_matter_is_checked_at_its_line(root: Layout) -> None:
    text = (f"---\ntitle: T\nhook: >-\n  The wait {{{{ claim: {HIGH} / {LOW} in 9..10"
            " | grows tenfold }}.\n---\nBody.\n")
    [error] = errors(root, text)
    assert error.startswith('content/explainers/x.md:4: claim: claim "grows tenfold" is false')


# --- The hand-typed-number check reads a claim's words, not its figures -------------------

def test_the_numbers_a_claim_compares_are_not_hand_typed_figures() -> None:
    sample = (
        "The wait {{ claim: sim:goodput.p99_ttft_s request_rate=20 x1000 > 2000"
        " | grows past two seconds }} there, and"
        " {{ claim: sim:a.b / sim:a.c in 7.5..10 | is 8x }}.\n"
    )
    assert hand_typed_figures(sample) == [(1, "8x")]


def test_the_words_a_claim_shows_are_prose_and_still_checked() -> None:
    sample = "Title\n\nThe wait {{ claim: sim:a.b > 1 | grows to 2.3 s }}.\n"
    assert hand_typed_figures(sample) == [(3, "2.3 s")]


# --- make check and staging evaluate claims ----------------------------------------------

FALSE_CLAIM = "{{ claim: sim:batching.static_makespan_s < sim:batching.continuous_makespan_s" \
    " | finishes sooner }}"
TRUE_CLAIM = "{{ claim: sim:batching.static_idle_fraction / sim:batching.continuous_idle_fraction" \
    " > 2 | more than twice as much }}"


def sample_with(tmp_path: Path, body_line: str, hook: str = "Run the batch.") -> Path:
    """The sample site with one more line in the batching explainer's prose (line 13)."""
    root = sample_tree(tmp_path / "root")
    page = root / "content" / "explainers" / "batching.md"
    text = page.read_text().replace("hook: Run the batch.", f"hook: >-\n  {hook}")
    page.write_text(text.replace("\n```sim", f"\n{body_line}\n\n```sim", 1))
    return root


def test_make_check_fails_on_a_false_claim_with_its_file_and_line(tmp_path: Path) -> None:
    root = sample_with(tmp_path, f"Static batching {FALSE_CLAIM}.")
    with pytest.raises(ContentErrors) as caught:
        check_content(LAYOUT.with_content(root), LAYOUT.mkdocs_yml)
    [error] = caught.value.errors
    assert (error.path, error.line, error.field) == ("content/explainers/batching.md", 13,
                                                     "claim")
    assert error.message.startswith('claim "finishes sooner" is false:'
                                    " sim:batching.static_makespan_s = ")


def test_staging_fails_on_a_false_claim_as_the_serve_banner_shows_it(tmp_path: Path) -> None:
    """make serve's banner lists the ContentErrors staging raises (mkdocs_hooks.on_pre_build)."""
    root = sample_with(tmp_path, f"Static batching {FALSE_CLAIM}.")
    with pytest.raises(ContentErrors) as caught:
        stage_site(LAYOUT.with_content(root), LAYOUT.mkdocs_yml, tmp_path / "docs")
    assert [(e.path, e.line, e.field) for e in caught.value.errors] == [
        ("content/explainers/batching.md", 13, "claim")
    ]
    assert not (tmp_path / "docs").exists(), "nothing is staged"


def test_a_staged_page_and_its_hub_card_show_the_words(tmp_path: Path) -> None:
    root = sample_with(tmp_path, f"Static batching idles {TRUE_CLAIM}.",
                       hook=f"Static batching idles {TRUE_CLAIM}.")
    stage = tmp_path / "docs"
    stage_site(LAYOUT.with_content(root), LAYOUT.mkdocs_yml, stage)
    page = (stage / "explainers" / "batching.md").read_text()
    assert "Static batching idles more than twice as much." in page
    assert "description: Static batching idles more than twice as much." in page
    hub = (stage / "feed" / "tags" / "batching" / "index.md").read_text()
    assert "Static batching idles more than twice as much." in hub
    staged = "".join(path.read_text(errors="replace") for path in stage.rglob("*")
                     if path.is_file() and path.suffix in (".md", ".xml", ".json"))
    assert "{{ claim" not in staged
