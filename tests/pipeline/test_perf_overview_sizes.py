"""The size of TensorRT-LLM's published offline runs: the transcription reads it from the
page's dataset table (both shapes the page has had), and a run of that size is what the
physics prices (sims.serving.offline)."""

from __future__ import annotations

import sys

from sims.physics import GPUS, MODELS, precision_for
from sims.serving.offline import offline_tokens_per_s_per_gpu
from tests.repo import LAYOUT

sys.path.insert(0, str(LAYOUT.code / "scripts" / "transcribe"))
from trtllm_perf_overview import requests_by_pair  # noqa: E402

NEWER = """
| Input Length | Output Length | Number of Requests |
|--------------|---------------|---------------------|
| 1024         | 1024          | 3000                |
| 32768        | 1024          | 1000                |

| Stage | Description | Command |
| 1 | 2 | 3 |
"""
OLDER = """
| Input Length | Output Length |  $seq_len  | $num_requests      |
| ------------ | ------------- | ---------- | ------------------ |
| 128          | 128           | 256        | 30000              |
| 20000        | 2000          | 22000      | 1000               |
"""


def test_the_dataset_table_gives_each_pairs_requests_in_both_shapes() -> None:
    assert requests_by_pair(NEWER) == {(1024, 1024): 3000, (32768, 1024): 1000}
    assert requests_by_pair(OLDER) == {(128, 128): 30000, (20000, 2000): 1000}
    assert requests_by_pair("| 1024 | 1024 | 5 |") == {}  # a row outside the table


def test_a_backlog_too_small_to_fill_every_rank_runs_slower() -> None:
    """3,000 requests over eight attention ranks that could each hold more never fill
    them: the run's rate per GPU is below the same replica's with a long backlog."""
    gpu, model = GPUS["h200"], MODELS["llama-4-maverick"]
    precision = precision_for(gpu, model, "fp8", "fp8", "fp8")
    steady = offline_tokens_per_s_per_gpu(gpu, model, 8, precision, 1000, 1000, 8192, 2048,
                                          "ep")
    published = offline_tokens_per_s_per_gpu(gpu, model, 8, precision, 1000, 1000, 8192, 2048,
                                             "ep", requests=3000)
    assert published < 0.9 * steady
