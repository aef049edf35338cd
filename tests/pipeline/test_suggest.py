"""Did-you-mean and the modeline check, on their own: the cases the fixtures name by example."""

from __future__ import annotations

import difflib

from ridgepoint.base.modeline import modeline, problems
from ridgepoint.base.suggest import closest, did_you_mean, plain


def test_a_name_differing_only_in_case_is_found_where_difflib_sees_nothing() -> None:
    assert difflib.get_close_matches("KV", ["kv"], cutoff=0.8) == []
    assert closest("KV", ["kv", "latency"]) == "kv"
    assert closest("TTFT", ["ttft"]) == "ttft"


def test_spaces_and_underscores_count_as_the_hyphens_of_a_slug() -> None:
    assert plain("Time To_First  Token") == "time-to-first-token"
    found = closest("Time To First Token", ["time-to-first-token", "goodput"])
    assert found == "time-to-first-token"
    assert closest("a_paper", ["a-paper"]) == "a-paper"


def test_a_near_spelling_is_suggested_and_a_far_one_is_not() -> None:
    assert did_you_mean("latncy", ["latency", "prefill"]) == "; did you mean 'latency'?"
    assert did_you_mean("gpu", ["latency", "prefill"]) == ""


def test_the_name_itself_is_never_suggested() -> None:
    assert closest("latency", ["latency"]) is None


def test_a_modeline_is_accepted_with_a_bom_stripped_crlf_and_comments_before_it() -> None:
    line = modeline("glossary/t.yaml", "term.schema.json")
    assert line == "# yaml-language-server: $schema=../scripts/ridgepoint/schemas/term.schema.json"
    text = f"# A term.\r\n{line}\r\nterm: T\r\n"
    assert problems(text, "glossary/t.yaml", "term.schema.json") == []


def test_a_modeline_counts_its_folders_from_the_content_root() -> None:
    line = modeline("content/catalogue/gpus/h100.yaml", "gpu.schema.json")
    assert line.endswith("$schema=../../../scripts/ridgepoint/schemas/gpu.schema.json")
