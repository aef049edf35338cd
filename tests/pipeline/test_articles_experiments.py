"""The two articles built on experiments: their figures come from the results, and their
words agree with them.

"Small and Specialized Models" and "Streaming Tokens to the User" take their numbers from
the committed experiment results through `{{ data:... }}` placeholders; test_articles.py
checks that every placeholder of every article resolves. Placeholders keep the numbers
current, but they cannot keep the words around them true. Where the prose states a
comparison in words ("the interval includes zero", "the server stopped generating"), a test
below checks that comparison against the committed results, so a rerun that changes the
answer fails here instead of leaving a sentence that is no longer so.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ridgepoint.prose.figures import PLACEHOLDER, FigureSource
from tests.repo import LAYOUT

ARTICLES = {
    "small-specialized-models": "routing_encoder",
    "streaming-tokens": "streaming",
}


def results(experiment: str) -> dict[str, Any]:
    return json.loads((LAYOUT.experiments / f"{experiment}.json").read_text("utf-8"))


@pytest.mark.parametrize(("slug", "experiment"), ARTICLES.items())
def test_article_quotes_its_experiment(slug: str, experiment: str) -> None:
    text = (LAYOUT.content / "articles" / f"{slug}.md").read_text("utf-8")
    quoted = {body.split(".")[0] for kind, body in PLACEHOLDER.findall(text) if kind == "data"}
    assert experiment in quoted, f"{slug} quotes no figure from {experiment}.json"


# -- what small-specialized-models.md says in words about the roofline sim -----------------

# gpt-fast's README: Llama-3-8B, BF16, batch size 1, A100-80GB power-limited to 330 W.
GPT_FAST_LLAMA3_8B_TOKENS_PER_S = 94.25


SOURCE = FigureSource(LAYOUT)  # one run per distinct set of inputs, shared by the tests below


def roofline(metric: str, **inputs: str) -> object:
    return SOURCE.sim_value("roofline", metric, inputs)


def test_the_published_measurement_lands_below_the_model() -> None:
    modelled = roofline(
        "decode_tokens_per_s", model="llama-3.1-8b", gpu="a100", batch_size="1", seq_len="128"
    )
    assert float(modelled) > GPT_FAST_LLAMA3_8B_TOKENS_PER_S  # type: ignore[arg-type]


@pytest.mark.parametrize("model", ["llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b"])
def test_decode_is_memory_bound_and_a_short_prefill_near_or_past_the_ridge(model: str) -> None:
    """The article: decode memory-bound for all three; the 512-token prefill compute-bound
    for the 8B and 70B models, and for the 1B just short of the ridge."""
    inputs = {"model": model, "gpu": "h100", "batch_size": "1", "seq_len": "512"}
    assert roofline("decode_bound", **inputs) == "memory"
    intensity = float(roofline("prefill_intensity", **inputs))  # type: ignore[arg-type]
    ridge = float(roofline("ridge_flops_per_byte", gpu="h100"))  # type: ignore[arg-type]
    if model == "llama-3.2-1b":
        assert 0.8 * ridge < intensity < ridge
    else:
        assert roofline("prefill_bound", **inputs) == "compute" and intensity > ridge


# -- what small-specialized-models.md says in words about routing_encoder.json ------------


@pytest.fixture(scope="module")
def routing() -> dict[str, Any]:
    return results("routing_encoder")["results"]


def test_centroid_difference_excludes_zero_and_logreg_difference_includes_it(
    routing: dict[str, Any],
) -> None:
    differences = routing["differences"]
    centroid = differences["minilm_centroid_minus_tfidf_centroid"]["accuracy"]
    logreg = differences["minilm_logreg_minus_tfidf_logreg"]["accuracy"]
    assert centroid["ci_low"] > 0, "prose: the centroid interval excludes zero"
    assert logreg["ci_low"] < 0 < logreg["ci_high"], "prose: the logreg interval includes zero"


def test_with_few_labels_the_encoders_worst_draw_beats_the_baselines_best(
    routing: dict[str, Any],
) -> None:
    curve = routing["learning_curve"]
    for size, minilm in curve["minilm"].items():
        assert minilm["logreg_accuracy_min"] > curve["tfidf"][size]["logreg_accuracy_max"], size


def test_the_calibration_range_lies_mostly_above_the_estimate(routing: dict[str, Any]) -> None:
    ece = routing["systems"]["minilm_logreg"]["expected_calibration_error"]
    assert ece["ci_high"] - ece["point"] > ece["point"] - ece["ci_low"]


def test_every_system_does_worse_on_hard_requests(routing: dict[str, Any]) -> None:
    for name, system in routing["systems"].items():
        hard = system["accuracy_hard_examples"]["point"]
        ordinary = system["accuracy_ordinary_examples"]["point"]
        assert hard < ordinary, name


def test_bag_of_words_recalls_the_llm_handler_more_often(routing: dict[str, Any]) -> None:
    systems = routing["systems"]
    tfidf = systems["tfidf_logreg"]["per_class"]["frontier_llm"]["recall"]
    minilm = systems["minilm_logreg"]["per_class"]["frontier_llm"]["recall"]
    assert tfidf > minilm


def test_a_higher_threshold_buys_accuracy_with_coverage(routing: dict[str, Any]) -> None:
    table = routing["systems"]["minilm_logreg"]["act_only_when_confident"]
    rows = sorted(table.values(), key=lambda row: row["threshold"])
    assert [r["coverage"] for r in rows] == sorted((r["coverage"] for r in rows), reverse=True)
    assert [r["accuracy_on_covered"] for r in rows] == sorted(
        r["accuracy_on_covered"] for r in rows
    )


def test_the_forward_pass_is_nearly_all_of_a_routing_decision(routing: dict[str, Any]) -> None:
    route = routing["latency"]["minilm_route"]
    assert route["encoder_forward"]["median_ms"] > 0.9 * route["total"]["median_ms"]


# -- what streaming-tokens.md says in words about streaming.json ---------------------------


@pytest.fixture(scope="module")
def streaming() -> dict[str, Any]:
    return results("streaming")


def _median(entry: dict[str, Any], key: str) -> float:
    return entry[key]["median"]


def test_streaming_moves_the_first_text_and_not_the_last(streaming: dict[str, Any]) -> None:
    delivery = streaming["delivery"]
    interval_ms = 1000 / streaming["parameters"]["rate_tokens_per_s"]
    whole = delivery["whole"]
    assert _median(whole, "time_to_first_text_ms") == _median(whole, "last_text_ms")
    lasts = [_median(delivery[way], "last_text_ms") for way in ("whole", "sse", "websocket")]
    assert max(lasts) - min(lasts) < interval_ms, "prose: last text within a few ms"
    for way in ("sse", "websocket"):
        first = _median(delivery[way], "time_to_first_text_ms")
        assert interval_ms < first < 2 * interval_ms, f"{way}: one token interval, plus a little"
        assert _median(delivery[way], "ttfb_ms") < first, f"{way}: headers before the first token"


def test_the_buffering_proxy_holds_the_stream_until_the_end(streaming: dict[str, Any]) -> None:
    delivery = streaming["delivery"]
    buffered = delivery["sse_via_buffering_proxy"]
    assert _median(buffered, "time_to_first_text_ms") == _median(buffered, "last_text_ms")
    assert buffered["bytes_per_token"] == delivery["sse"]["bytes_per_token"]
    relayed = delivery["sse_via_buffering_proxy_with_x_accel_buffering_no"]
    interval_ms = 1000 / streaming["parameters"]["rate_tokens_per_s"]
    assert _median(relayed, "time_to_first_text_ms") < 2 * interval_ms


def test_framing_per_token_is_smallest_for_the_websocket(streaming: dict[str, Any]) -> None:
    delivery = streaming["delivery"]
    framing = {way: entry["framing_bytes_per_token"] for way, entry in delivery.items()}
    assert framing["whole"] == 0
    assert 0 < framing["websocket"] < framing["sse"]


def test_a_server_that_watches_stops_and_one_that_writes_late_does_not(
    streaming: dict[str, Any],
) -> None:
    leaves = streaming["reader_leaves"]
    for name, case in leaves.items():
        assert case["runs_detected"] == case["runs"], f"{name}: the server noticed every time"
        assert case["max_tokens_generated_after_detection"] == 0, name
        if name.endswith("_watch"):  # a token due the very moment the reader leaves may slip out
            assert case["tokens_generated_after_leave"]["median"] == 0, name
    whole = leaves["whole_detect_write"]
    assert whole["tokens_generated"] == streaming["parameters"]["tokens"]
    for name in ("sse_detect_write", "websocket_detect_write"):
        wasted = leaves[name]["tokens_generated_after_leave"]["median"]
        assert 0 < wasted < whole["tokens_generated_after_leave"]["median"], name


def test_the_reader_waits_only_below_reading_speed(streaming: dict[str, Any]) -> None:
    reader_tokens_per_s = streaming["derived"]["reader_tokens_per_s"]
    for row in streaming["reading_vs_generation"].values():
        slower = row["generation_rate_tokens_per_s"] < reader_tokens_per_s
        assert (row["reader_stalled_ms"] > 0) == slower, row
        assert row["reader_finished_ms"] < row["reader_finished_if_whole_ms"], row
