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
# Issue 19 adds latency-tagged terms and a third section to the path.
ISSUE_19_TERMS = ["Mixture of experts", "Expert parallelism", "Quantization",
                  "Disaggregated serving", "KV transfer"]
ISSUE_19_PATH = [
    "\u201cGive Me BF16 or Give Me Death\u201d? Accuracy-Performance Trade-Offs in LLM "
    "Quantization",
    "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized Large Language Model "
    "Serving",
    "Splitwise: Efficient Generative LLM Inference Using Phase Splitting",
    "Mooncake: Trading More Storage for Less Computation \u2014 A KVCache-centric Architecture "
    "for Serving LLM Chatbot",
]


def test_latency_hub(built_repo: Path) -> None:
    hub = read_page(page_file(built_repo, "feed/tags/latency/"))
    explainers = len(hub.kinds("explainer"))
    noun = "explainer" if explainers == 1 else "explainers"
    terms = len(TERMS) + len(ISSUE_19_TERMS)
    counts = (f"{explainers} {noun} you can run, {terms} glossary terms, and "
              f"{len(PATH) + len(ISSUE_19_PATH)} readings ordered as a path")
    assert counts in hub.text
    assert [name for name in hub.order("term", TERMS) if name in TERMS] == TERMS
    path = [*PATH, *ISSUE_19_PATH]
    assert hub.order("reading", path)[:len(path)] == path


def test_latency_feed(built_repo: Path) -> None:
    parsed = feedparser.parse((built_repo / "feed" / "tags" / "latency.xml").read_bytes())
    assert not parsed.bozo
    titles = {entry.title for entry in parsed.entries}
    assert set(PATH) <= titles
