"""Workload presets: the prompt and answer shapes a planner is asked about most.

These are our presets, not measurements: round lengths in the shapes serving benchmarks
sweep (a short prompt and a short answer for chat, a long answer for reasoning, a long
prompt and a short answer for summarization, a very long prompt for retrieval over a long
context), each with a length spread (coefficient of variation, log-normal, as
`sims.serving.workload.draw` uses it). An explicit prompt or answer length overrides the
preset's.
"""

from __future__ import annotations

from typing import NamedTuple


class Workload(NamedTuple):
    """A preset: mean prompt and answer tokens and their spread."""

    key: str
    label: str
    isl: int
    osl: int
    spread: float


WORKLOADS: dict[str, Workload] = {w.key: w for w in (
    Workload("chat", "Chat: short prompts, short answers", 1000, 250, 0.5),
    Workload("reasoning", "Reasoning: short prompts, long answers", 1000, 4000, 0.5),
    Workload("summarization", "Summarization: long prompts, short answers", 8000, 500, 0.3),
    Workload("long-context-retrieval", "Long-context retrieval: very long prompts", 32000,
             250, 0.3),
)}
DEFAULT_WORKLOAD = "chat"
