"""A result answered in two parts: what a change needs at once, then the rest.

A reader who changes an input should see its answer in the next frame (issue 40: the
summary and the first chart within 16 ms). A load sim's full answer takes longer than that
in a browser's Python: most of it is a sweep (kv_memory's block sizes, goodput's arrival
rates) that only later charts and a few figures read. Such a sim's model returns a `Phased`:
the summary with those few figures marked `LATER`, the charts that need no sweep, and
`rest`, which runs the sweep and gives the figures and charts it owes.

Natively nothing changes: `simulate` (contract.simulation) completes the result at once,
so the CLI, the tests and the build see one whole result. Only the page's runs begin and
finish apart (runner.start and runner.finish), and the finished result is the same object
`simulate` returns, so what the page shows last is what every test checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final


class _Later:
    """The type of LATER: a summary figure that `Phased.rest` gives."""

    def __repr__(self) -> str:
        return "LATER"


LATER: Final = _Later()

# What `rest` gives: the LATER figures by name, and the charts that follow the first ones.
Rest = tuple[dict[str, Any], list[dict[str, Any]]]


@dataclass(frozen=True)
class Phased:
    """A sim's result in two parts. `summary` holds every figure in its final order, LATER
    for those `rest` computes; `charts` are the first charts, those `rest` gives follow
    them; `rest` must give exactly the LATER figures."""

    summary: dict[str, Any]
    charts: list[dict[str, Any]]
    rest: Callable[[], Rest] = field(compare=False)

    def pending(self) -> list[str]:
        """The figures the first part leaves out, in summary order."""
        return [name for name, value in self.summary.items() if value is LATER]

    def first(self) -> dict[str, Any]:
        """The first part as a result: pending figures None (the page shows them as
        pending), the first charts only."""
        summary = {name: None if value is LATER else value for name, value in self.summary.items()}
        return {"summary": summary, "charts": self.charts}

    def complete(self) -> dict[str, Any]:
        """The whole result: the first part with what `rest` gives filled in."""
        figures, charts = self.rest()
        pending = self.pending()
        if sorted(figures) != sorted(pending):
            raise TypeError(f"rest gave the figures {sorted(figures)}; the summary left "
                            f"{pending} for it")
        summary = {name: figures[name] if value is LATER else value
                   for name, value in self.summary.items()}
        return {"summary": summary, "charts": [*self.charts, *charts]}
