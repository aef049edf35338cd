"""The YAML loaders content is read with: PyYAML's safe loader, bounded, dates kept as text.

Two changes to SafeLoader. Dates stay text, so the schema can say what a malformed date
looks like instead of YAML silently turning `2026-11-30` into a date and `2026-11-31` into
a string. And a document is bounded in depth and in size counted with its aliases expanded,
so a "billion laughs" file (a few lines of anchors and aliases that expand to billions of
values) or a self-referencing alias is refused in microseconds instead of hanging the
build: validation, error messages and page generation all walk the expanded data.

libyaml (PyYAML's C scanner and parser) reads every document first, several times faster
than the pure-Python one (`FastLoader`); composing nodes, resolving and constructing values
stay PyYAML's Python code, so the data and each node's line are the same
(tests/pipeline/test_yamldoc.py). ridgepoint.content.yamldoc reads a document libyaml refuses, or
that breaks a bound, again with the pure-Python `Loader`, whose messages and lines its
error reports are written for.
"""

from __future__ import annotations

from typing import Any

import yaml

_TIMESTAMP = "tag:yaml.org,2002:timestamp"

# Content is a few levels deep and a few hundred values; these bounds are far above any real
# file and far below what would take noticeable time or memory to walk.
MAX_DEPTH = 32
MAX_VALUES = 10_000


class Refused(Exception):
    """A document beyond MAX_DEPTH or MAX_VALUES, or with an alias inside its own anchor."""

    def __init__(self, mark: yaml.Mark, message: str, expected: str) -> None:
        super().__init__(message)
        self.mark, self.message, self.expected = mark, message, expected


_RESOLVERS = {
    first: [resolver for resolver in resolvers if resolver[0] != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Bounded:
    """Composition bounded in depth and values: each node's depth and value count are kept
    as it is composed, counting an alias as the whole value it names. Mixed into a loader
    before PyYAML's Composer."""

    def _start_bounds(self) -> None:
        self._depth = 0
        self._extent: dict[int, tuple[int, int]] = {}  # id(node) -> (depth, values), expanded

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node:
        event = self.peek_event()  # type: ignore[attr-defined]
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)  # type: ignore[misc]
            if id(node) not in self._extent:  # its anchor is still open: it contains itself
                message = f"alias *{event.anchor} is inside the value it names"
                raise Refused(event.start_mark, message, "aliases of finished values only")
            return node
        if self._depth >= MAX_DEPTH:
            raise Refused(event.start_mark, f"nests deeper than {MAX_DEPTH} levels", _SMALLER)
        self._depth += 1
        try:
            node = super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1
        extents = [self._extent[id(child)] for child in children(node)]
        depth = 1 + max((child_depth for child_depth, _ in extents), default=0)
        values = 1 + sum(child_values for _, child_values in extents)
        if depth > MAX_DEPTH:
            raise Refused(node.start_mark, f"nests deeper than {MAX_DEPTH} levels", _SMALLER)
        if values > MAX_VALUES:
            raise Refused(node.start_mark, f"holds more than {MAX_VALUES} values", _SMALLER)
        self._extent[id(node)] = (depth, values)
        return node


class Loader(_Bounded, yaml.SafeLoader):
    """SafeLoader, pure Python, without implicit timestamps (`added: 2026-11-30` loads as a
    string), and bounded (see _Bounded)."""

    yaml_implicit_resolvers = _RESOLVERS

    def __init__(self, stream: str) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._start_bounds()


if yaml.__with_libyaml__:

    class FastLoader(_Bounded, yaml.composer.Composer, yaml.cyaml.CParser,
                     yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """Loader with libyaml's scanner and parser under the same Python composer,
        resolver and constructor (the Composer comes before CParser, whose own composer,
        in C, would skip the bounds)."""

        yaml_implicit_resolvers = _RESOLVERS

        def __init__(self, stream: str) -> None:
            yaml.cyaml.CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self._start_bounds()

else:  # a PyYAML built without libyaml: the pure-Python parser does all the reading
    FastLoader = Loader  # type: ignore[misc]


_SMALLER = f"at most {MAX_DEPTH} levels and {MAX_VALUES} values, an alias counting in full"


def children(node: yaml.Node) -> list[yaml.Node]:
    """The nodes directly inside a node: items, or keys and values."""
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load(loader_class: type[Loader] | type[FastLoader], text: str) -> tuple[yaml.Node | None, Any]:
    """The node tree and data of a one-document `text`, read by `loader_class`."""
    loader = loader_class(text)  # the pure-Python reader checks every character already
    try:
        node = loader.get_single_node()
        return node, loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
