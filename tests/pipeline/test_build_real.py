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
# Added with the explainers on load (issue 18): their terms tagged latency, and the path's
# section on load.
LOAD_TERMS = [
    "Arrival rate", "Continuous batching", "KV cache", "Preemption", "Queueing delay",
    "Serving capacity", "SLO attainment", "Tail latency", "Token budget",
]  # fmt: skip
LOAD_PATH = [
    "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized Large Language "
    "Model Serving",
    "Efficient Memory Management for Large Language Model Serving with PagedAttention",
    "Vidur: A Large-Scale Simulation Framework For LLM Inference",
]
PATH = [
    "Producing the World's Cheapest Tokens: A How-to Guide",
    "Introducing System One Models and Jev",
    "DeepSeek V4 Flash across 14 providers: cost, speed and caching",
    "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
    "Accelerating Large Language Model Decoding with Speculative Sampling",
    "Fast Inference from Transformers via Speculative Decoding",
]
# Issue 19 adds latency-tagged terms and a fourth section to the path (DistServe, which it
# also cites, is read in the section on load).
ISSUE_19_TERMS = ["Mixture of experts", "Expert parallelism", "Quantization",
                  "Disaggregated serving", "KV transfer"]
ISSUE_19_PATH = [
    "\u201cGive Me BF16 or Give Me Death\u201d? Accuracy-Performance Trade-Offs in LLM "
    "Quantization",
    "Splitwise: Efficient Generative LLM Inference Using Phase Splitting",
    "Mooncake: Trading More Storage for Less Computation \u2014 A KVCache-centric Architecture "
    "for Serving LLM Chatbot",
]


def test_latency_hub(built_repo: Path) -> None:
    hub = read_page(page_file(built_repo, "feed/tags/latency/"))
    explainers = len(hub.kinds("explainer"))
    noun = "explainer" if explainers == 1 else "explainers"
    terms = len(TERMS) + len(LOAD_TERMS) + len(ISSUE_19_TERMS)
    path = [*PATH, *LOAD_PATH, *ISSUE_19_PATH]
    counts = (f"{explainers} {noun} you can run, {terms} glossary terms, and {len(path)} "
              f"readings ordered as a path")
    assert counts in hub.text
    # Each list in page order among the others: an item starts with its term's name (its
    # definition may name other terms).
    shown = [item.text.strip() for item in hub.kinds("term")]
    for names in (TERMS, LOAD_TERMS):
        assert [n for text in shown for n in names if text.startswith(n)] == names
    assert hub.order("reading", path)[:len(path)] == path


def test_latency_feed(built_repo: Path) -> None:
    parsed = feedparser.parse((built_repo / "feed" / "tags" / "latency.xml").read_bytes())
    assert not parsed.bozo
    titles = {entry.title for entry in parsed.entries}
    assert set(PATH) <= titles
