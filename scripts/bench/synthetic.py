"""Synthetic content: the real site's content times N, in a temporary repository-shaped tree.

The build bench asks how cost grows with content. This copies the repository's content
(mkdocs.yml, content/, glossary/, feed/) into a folder outside the repository and adds
(N - 1) times as many terms, readings and articles as the real site has, each shaped like
the real ones: terms with definitions and related terms, readings with a why and several
tags, articles of about the real articles' length with headings, a table, a code block,
glossary mentions, a figure placeholder and, like most real articles, an embedded sim at
its starting inputs. Nothing here is published: the text is deterministic filler, and
readings carry no URL (none would be real).

An item must not change shape with the scale, or the bench would measure richer items
rather than more of them. So an article mentions the terms of its own topic, a fixed
number of them, not terms drawn from the whole glossary: staging links each term's first
mention (with its definition as the link's title), so drawing from the whole glossary gave
the same 36 articles 66 glossary links each on average at 10x and 112 at 100x, 11% more
staged bytes. Real articles link 1 to 3 terms.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

import sims
from ridgepoint.content.load import load_site
from ridgepoint.content.validate import schemas

COPIED = ("mkdocs.yml", "overrides", "content", "glossary", "feed")
WORDS = (
    "batch", "decode", "prefill", "token", "cache", "queue", "replica", "memory", "bandwidth",
    "compute", "kernel", "step", "request", "stream", "latency", "budget", "schedule", "chunk",
    "prompt", "context", "model", "weight", "layer", "head", "shard", "reader", "answer",
    "wait", "first", "second", "rate", "load", "peak", "tail", "median", "share",
)
# What a reading may be, in the schema's order (the order keeps the generator deterministic).
READING_KINDS = tuple(schemas()["reading.schema.json"]["properties"]["kind"]["enum"])
PARAGRAPHS_PER_ARTICLE = 40  # about the real articles' 24 KB of Markdown on average
TERMS_PER_ARTICLE = 12  # an article's topic: the glossary terms it mentions, at any scale
SEED = 7


@dataclass(frozen=True)
class Counts:
    """How many of each kind a tree holds."""

    terms: int
    readings: int
    articles: int

    def total(self) -> int:
        return self.terms + self.readings + self.articles


def real_counts(root: Path) -> Counts:
    """The real site's counts: the unit that 1x, 10x and 100x multiply."""
    return Counts(
        terms=len(list((root / "glossary").glob("*.yaml"))),
        readings=len(list((root / "feed").glob("*.yaml"))),
        articles=len(list((root / "content" / "articles").glob("*.md"))),
    )


def _sentence(rng: random.Random, words: int, terms: list[str]) -> str:
    chosen = [rng.choice(WORDS) for _ in range(words)]
    if terms and rng.random() < 0.5:
        chosen.insert(rng.randrange(len(chosen)), rng.choice(terms).lower())
    return " ".join(chosen).capitalize() + "."


def _paragraph(rng: random.Random, terms: list[str]) -> str:
    return " ".join(_sentence(rng, rng.randint(8, 18), terms) for _ in range(6))


class Generator:
    """Writes synthetic terms, readings and articles into a copied tree."""

    def __init__(self, root: Path, tags: list[str], seed: int = SEED) -> None:
        self.root = root
        self.tags = tags
        self.rng = random.Random(seed)
        self.term_names: list[str] = []
        self.sim_names = [name for name in sims.sim_names()]

    def _tags(self) -> list[str]:
        others = [tag for tag in self.tags if tag != "latency"]
        return ["latency", *self.rng.sample(others, k=min(3, len(others)))]

    def term(self, index: int, count: int) -> None:
        name = f"{self.rng.choice(WORDS).capitalize()} {self.rng.choice(WORDS)} {index}"
        self.term_names.append(name)
        related = sorted({f"syn-term-{self.rng.randrange(count)}" for _ in range(2)}
                         - {f"syn-term-{index}"})
        data = {"term": name, "definition": _sentence(self.rng, 20, []),
                "tags": self._tags(), "related": related}
        self._yaml(self.root / "glossary" / f"syn-term-{index}.yaml", data, "term")

    def reading(self, index: int) -> None:
        data = {
            "kind": self.rng.choice(READING_KINDS),
            "title": f"Synthetic reading {index}: " + _sentence(self.rng, 6, []).rstrip("."),
            "authors": [f"Author {index}-{n}" for n in range(self.rng.randint(1, 6))],
            "where": f"Workshop {2020 + index % 6}",
            "added": f"2026-{1 + index % 12:02d}-{1 + index % 28:02d}",
            "tags": self._tags(),
            "why": " ".join(_sentence(self.rng, 14, self.term_names) for _ in range(3)),
        }
        self._yaml(self.root / "feed" / f"syn-reading-{index}.yaml", data, "reading")

    def article(self, index: int) -> None:
        sim = self.sim_names[index % len(self.sim_names)]
        metric = next(iter(sims.load(sim).METRICS))
        topic = self.rng.sample(self.term_names, k=min(TERMS_PER_ARTICLE, len(self.term_names)))
        parts = [f"Filler about serving, part {index}. The starting inputs give "
                 f"{{{{ sim:{sim}.{metric} | .3g }}}}."]
        for number in range(PARAGRAPHS_PER_ARTICLE):
            if number % 6 == 0:
                parts.append(f"## Section {number // 6 + 1}")
            parts.append(_paragraph(self.rng, topic))
            if number == 8:
                parts.append("| load | wait |\n|---|---|\n" + "\n".join(
                    f"| {n} | {self.rng.random():.3f} |" for n in range(8)))
            if number == 12:
                parts.append("```python\nwait = ttft + (n - 1) * itl\n```")
            if number == 16 and index % 4 != 3:  # three articles in four embed a sim
                parts.append(f"```sim\nmodule: {sim}\n```")
        front = {"title": f"Synthetic article {index}",
                 "summary": _sentence(self.rng, 24, []), "tags": self._tags(),
                 "published": f"2026-{1 + index % 12:02d}-01",
                 "updated": f"2026-{1 + index % 12:02d}-15"}
        text = "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n\n" + "\n\n".join(parts)
        path = self.root / "content" / "articles" / f"syn-article-{index}.md"
        path.write_text(text + "\n", encoding="utf-8")

    def _yaml(self, path: Path, data: dict[str, object], schema: str) -> None:
        depth = "../" * (len(path.relative_to(self.root).parts) - 1)
        modeline = (f"# yaml-language-server: $schema={depth}scripts/ridgepoint/schemas/"
                    f"{schema}.schema.json\n")
        path.write_text(modeline + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def generate(source: Path, target: Path, factor: int) -> Counts:
    """Copy `source`'s content to `target` and add synthetic items so that each kind is
    `factor` times the real count. Returns the counts in `target`."""
    if factor < 1:
        raise ValueError(f"factor must be at least 1, got {factor}")
    for name in COPIED:
        origin = source / name
        if origin.is_dir():
            shutil.copytree(origin, target / name, dirs_exist_ok=True)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target / name)
    unit = real_counts(source)
    vocabulary = yaml.safe_load((source / "feed" / "tags" / "_vocabulary.yaml").read_text())
    generator = Generator(target, sorted(vocabulary["tags"]))
    extra = Counts(unit.terms * (factor - 1), unit.readings * (factor - 1),
                   unit.articles * (factor - 1))
    for index in range(extra.terms):
        generator.term(index, extra.terms)
    for index in range(extra.readings):
        generator.reading(index)
    for index in range(extra.articles):
        generator.article(index)
    return real_counts(target)


def check(root: Path) -> Counts:
    """Load the tree as the build would (raises ContentErrors if anything is invalid)."""
    site = load_site(root)
    return Counts(len(site.terms), len(site.readings), len(site.articles))
