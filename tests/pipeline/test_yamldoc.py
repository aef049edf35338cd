"""The two YAML parsers behind ridgepoint.content.yamldoc agree: libyaml (what reads every document)
gives the data and node lines the pure-Python parser gives for every document both read,
and whatever libyaml refuses is explained by the pure-Python parser, with its message and
line. (libyaml reads a few documents the pure-Python parser refuses although YAML allows
them, such as a tab inside a plain scalar; see the last test.)"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ridgepoint.base.errors import ContentErrors
from ridgepoint.content import yamldoc, yamlload
from tests.repo import REPO

KEYS = st.sampled_from(["term", "tags", "why", "path", "readings", "a b", "ü"]) | st.text(
    max_size=8)
SCALARS = (st.text(max_size=40) | st.integers() | st.floats(allow_nan=False) | st.booleans()
           | st.none() | st.just("2026-11-30") | st.just("a: b # c"))
DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=15,
)
STYLES = st.sampled_from([None, False, True])  # default_flow_style

pytestmark = pytest.mark.skipif(
    yamlload.FastLoader is yamlload.Loader, reason="this PyYAML has no libyaml"
)


def outcome(loader: type, text: str) -> tuple[str, Any]:
    """("data", (data, every node's line)) or ("refused", exception type)."""
    try:
        node, data = yamlload.load(loader, text)
    except (yaml.YAMLError, yamlload.Refused) as exc:
        return "refused", type(exc).__name__
    return "data", (data, lines(text, node, set()))


def lines(text: str, node: yaml.Node | None, seen: set[int]) -> list[tuple[str, int]]:
    """Each node's kind and the line errors would name for it, depth first (an alias's node
    once). Lines, not character positions: an empty value's position may differ by a
    character between the parsers, never by a line."""
    if node is None or id(node) in seen:
        return []
    seen.add(id(node))
    found = [(type(node).__name__, yamldoc.file_line(text, node.start_mark, 1))]
    for child in yamlload.children(node):
        found += lines(text, child, seen)
    return found


def agree(text: str) -> None:
    """Both parsers read the same data and lines from `text`, or one of them refuses."""
    fast, pure = outcome(yamlload.FastLoader, text), outcome(yamlload.Loader, text)
    if "refused" not in (fast[0], pure[0]):
        assert fast == pure, text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=DATA, style=STYLES, width=st.sampled_from([20, 80]))
def test_both_parsers_give_the_same_data_and_lines(
    document: Any, style: bool | None, width: int
) -> None:
    text = yaml.safe_dump(document, default_flow_style=style, allow_unicode=True, width=width)
    assert outcome(yamlload.FastLoader, text)[0] == outcome(yamlload.Loader, text)[0] == "data"
    agree(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=DATA, style=STYLES, cut=st.integers(0, 400), junk=st.text(max_size=4),
       drop=st.integers(0, 3))
def test_damaged_documents_read_the_same_whenever_both_parsers_read_them(
    document: Any, style: bool | None, cut: int, junk: str, drop: int
) -> None:
    """Characters dropped and others inserted at one place."""
    text = yaml.safe_dump(document, default_flow_style=style, allow_unicode=True)
    cut = min(cut, len(text))
    agree(text[:cut] + junk + text[cut + drop:])


def test_every_content_file_of_the_repository_reads_the_same() -> None:
    files = [*REPO.glob("glossary/*.yaml"), *REPO.glob("feed/**/*.yaml")]
    assert len(files) > 10
    for file in files:
        text = file.read_text(encoding="utf-8")
        assert outcome(yamlload.FastLoader, text)[0] == "data", file
        agree(text)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a: 1\nb: 'open\nc: 2\n", 4, "syntax error while scanning a quoted scalar"),
        ("a: 1\nb: c: d\n", 2, "syntax error: mapping values are not allowed here"),
        ("a: &x [*x]\n", 1, "alias *x is inside the value it names"),
        ("a: 1\nb: \x07\n", 2, "character U+0007 is not allowed in YAML"),
        ("a: !!python/object:os.system x\n", 1, "cannot load: could not determine"),
    ],
)
def test_what_libyaml_refuses_is_explained_by_the_pure_parser(
    text: str, line: int, message: str
) -> None:
    assert outcome(yamlload.FastLoader, text)[0] == "refused"
    with pytest.raises(ContentErrors) as caught:
        yamldoc.parse(text, "x.yaml")
    [error] = caught.value.errors
    assert (error.line, error.field) == (line, "yaml")
    assert error.message.startswith(message), error.message


def test_libyaml_reads_a_tab_in_a_plain_scalar_as_yaml_allows() -> None:
    """A known kind of difference: the pure-Python scanner refuses a tab YAML allows."""
    text = "term: Time\tto first token\n"
    assert outcome(yamlload.Loader, text) == ("refused", "ScannerError")
    assert yamldoc.parse(text, "x.yaml").data == {"term": "Time\tto first token"}
