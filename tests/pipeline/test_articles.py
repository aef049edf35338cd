"""Every article's figures resolve, and each article embeds the sims its argument rests on.

The articles never type a number that a sim or an experiment produced; they name the sim,
its inputs and the metric, and staging writes the value in. These tests run that step on
the real articles against the real sims and result files, so a renamed metric, a removed
input or a missing result file fails here, naming the article and line, before a build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgepoint.content.load import split_front_matter
from ridgepoint.prose.figures import FENCE, PLACEHOLDER, FigureSource, render_figures
from ridgepoint.sims.blocks import iter_blocks, read_block
from ridgepoint.sims.simrun import SimRuns
from tests.repo import LAYOUT

ARTICLES = sorted((LAYOUT.content / "articles").glob("*.md"))

# The sims each article's argument depends on; an article may embed more.
EMBEDS = {
    "speculative-decoding-derived.md": {"spec_sampling", "speculative"},
    "prompt-caching.md": {"prefix_cache"},
    "small-specialized-models.md": {"roofline"},
}

# One source for the whole module: each distinct sim run happens once, however many
# articles and tests ask for it.
RUNS = SimRuns.of(LAYOUT)
SOURCE = FigureSource(LAYOUT, RUNS.run)


def relative(path: Path) -> str:
    return LAYOUT.relative(path)


def prose(text: str) -> str:
    """The text outside fenced code blocks, where placeholders are live."""
    kept, fence = [], None
    for line in text.splitlines(keepends=True):
        if match := FENCE.match(line):
            marker = match.group(1)
            fence = None if fence == marker else (fence or marker)
        elif not fence:
            kept.append(line)
    return "".join(kept)


def test_there_are_articles() -> None:
    assert ARTICLES, "content/articles/ holds no articles"


@pytest.mark.parametrize("path", ARTICLES, ids=lambda path: path.name)
def test_every_figure_resolves(path: Path) -> None:
    """render_figures raises ContentErrors (file:line and the reason) for any bad reference."""
    rendered = render_figures(path.read_text("utf-8"), relative(path), SOURCE)
    leftover = PLACEHOLDER.findall(prose(rendered))
    assert not leftover, f"placeholders left unrendered in {path.name}: {leftover}"
    assert "{{" not in prose(rendered), f"a malformed placeholder in {path.name}"


@pytest.mark.parametrize("path", ARTICLES, ids=lambda path: path.name)
def test_every_sim_block_is_valid(path: Path) -> None:
    """Module, shown inputs and starting values of each ```sim block exist and are in range."""
    text = path.read_text("utf-8")
    for fenced in iter_blocks(text):
        read_block(fenced, path.name, RUNS)


@pytest.mark.parametrize(("name", "modules"), sorted(EMBEDS.items()))
def test_article_embeds_its_sims(name: str, modules: set[str]) -> None:
    text = (LAYOUT.content / "articles" / name).read_text("utf-8")
    embedded = {read_block(fenced, name, RUNS).module for fenced in iter_blocks(text)}
    assert modules <= embedded, f"{name} should embed {sorted(modules - embedded)}"


@pytest.mark.parametrize(("name", "modules"), sorted(EMBEDS.items()))
def test_prose_figures_come_from_the_embedded_sims(name: str, modules: set[str]) -> None:
    """The argument quotes the sims the reader can run, not only other pages' sims."""
    text = (LAYOUT.content / "articles" / name).read_text("utf-8")
    quoted = {
        body.split(".")[0].strip() for kind, body in PLACEHOLDER.findall(prose(text))
        if kind == "sim"
    }
    assert modules <= quoted, f"{name} never quotes {sorted(modules - quoted)}"


@pytest.mark.parametrize("path", ARTICLES, ids=lambda path: path.name)
def test_front_matter_is_complete_and_tagged_latency(path: Path) -> None:
    meta, _, _ = split_front_matter(path.read_text("utf-8"), relative(path))
    assert {"title", "summary", "tags", "published", "updated"} <= set(meta)
    assert "latency" in meta["tags"]
    assert str(meta["updated"]) >= str(meta["published"])


def test_the_sampling_check_agrees_with_the_derivation() -> None:
    """The numbers the speculative article quotes as a check really do agree.

    The article says the rule's measured acceptance and tokens per step match the formulas,
    and that the output is as close to the target as direct samples; if the sim changed so
    that this stopped being true, the prose would be wrong even though it still renders.
    """
    def value(metric: str) -> float:
        return float(SOURCE.sim_value("spec_sampling", metric, {}))  # the quoted inputs

    assert abs(value("acceptance_rate_measured") - value("acceptance_rate_theory")) < 0.02
    assert abs(value("tokens_per_step_measured") - value("tokens_per_step_theory")) < 0.1
    assert value("total_variation_output_vs_target") < value(
        "total_variation_draft_vs_target"
    ) / 5
    assert value("total_variation_output_vs_target") < 2 * value(
        "total_variation_direct_vs_target"
    )


def test_the_batch_story_holds_at_the_quoted_batches() -> None:
    """The speculative article's claims about batch size, checked against the sim: the
    verify pass "still" memory-bound at 32 sequences, memory-bound "on balance" at 64 (its
    matmuls near the ridge), "turned" compute-bound at 128; a slowdown at 512, where the best
    lookahead is the shortest and gains little. The figures render whatever the sim says;
    the words around them are held here."""
    def value(metric: str, **inputs: str) -> object:
        return SOURCE.sim_value("speculative", metric, inputs)

    assert value("verify_bound", batch_size="32") == "memory"
    assert value("verify_bound", batch_size="64") == "memory"
    assert value("verify_bound", batch_size="128") == "compute"
    assert float(value("speedup", batch_size="512")) < 1  # type: ignore[arg-type]
    assert value("best_lookahead", batch_size="512") == 1
    assert 1 < float(value("best_speedup", batch_size="512")) < 1.15  # type: ignore[arg-type]
    assert float(value("speedup", batch_size="1", acceptance_rate="0")) < 1  # type: ignore[arg-type]

