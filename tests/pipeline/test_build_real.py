"""The real site builds, and its latency hub holds what the brief asks for."""

from __future__ import annotations

from pathlib import Path

import feedparser

from tests.pipeline.html_tools import page_file, read_page

TERMS = [
    "Acceptance rate", "Chunked prefill", "Generation stall", "Goodput", "Inter-token latency",
    "Kernel launch overhead", "Service level objective", "Speculative decoding",
    "Time per output token", "Time to first token",
]  # fmt: skip
PATH = [
    "Producing the World's Cheapest Tokens: A How-to Guide",
    "Introducing System One Models and Jev",
    "DeepSeek V4 Flash across 14 providers: cost, speed and caching",
    "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
    "Accelerating Large Language Model Decoding with Speculative Sampling",
    "Fast Inference from Transformers via Speculative Decoding",
]


def test_latency_hub(built_repo: Path) -> None:
    hub = read_page(page_file(built_repo, "feed/tags/latency/"))
    explainers = len(hub.kinds("explainer"))
    noun = "explainer" if explainers == 1 else "explainers"
    counts = f"{explainers} {noun} you can run, 10 glossary terms, and 6 readings ordered as a path"
    assert counts in hub.text
    assert hub.order("term", TERMS) == TERMS
    assert hub.order("reading", PATH)[:6] == PATH


def test_latency_feed(built_repo: Path) -> None:
    parsed = feedparser.parse((built_repo / "feed" / "tags" / "latency.xml").read_bytes())
    assert not parsed.bozo
    titles = {entry.title for entry in parsed.entries}
    assert set(PATH) <= titles
