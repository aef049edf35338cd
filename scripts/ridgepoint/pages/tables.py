"""Sortable tables: the one component for every table a reader may want to reorder (the
catalogue's comparison tables, the calibration page's points).

The table works as written, without scripts: its rows in the page's order, each figure as
text. Its `data-rp-sortable` attribute is what content/assets/tables.js binds to: that script
makes each column's heading a button that sorts the rows by the column, and says the order
in the heading's `aria-sort`. A numeric column's cells carry their figure in `data-sort`, in
full precision, so rows sort by the figures and not by their text ("2,039" after "989"); a
cell with no figure has an empty key and sorts last either way. The wrapper scrolls a table
wider than the screen (a phone's 390 px), with or without the theme's own script.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ridgepoint.base.markup import esc

RIGHT = "rp-align-right"  # the site's class for a right-aligned cell (table_align)


@dataclass(frozen=True)
class Column:
    """A column: its heading (plain text), whether its cells are figures (right-aligned and
    sorted by value), and whether its cells name their row (row headers, `<th scope="row">`)."""

    label: str
    numeric: bool = False
    names_rows: bool = False


@dataclass(frozen=True)
class Cell:
    """A cell: its content, already escaped, and what it sorts by: a figure for a numeric
    column (None: no figure, sorts last), text for a text column (None: its own text)."""

    html: str
    key: float | str | None = None


@dataclass(frozen=True)
class Row:
    """A row's cells, one per column, and attributes for its `<tr>` (name, value; escaped
    here), such as an id a link reaches or a data attribute the stylesheet reads."""

    cells: Sequence[Cell]
    attributes: Sequence[tuple[str, str]] = ()


def reference(number: int, anchor: str) -> str:
    """A numbered link to a source's entry on the same page: the figure's source one click
    away, for keyboard and touch readers too (a tooltip would hide it from them)."""
    return f'<a href="#{esc(anchor)}">[{number}]</a>'


def _sort_key(key: float | str | None, numeric: bool) -> str:
    if key is None:
        return ' data-sort=""' if numeric else ""
    return f' data-sort="{esc(repr(float(key)) if numeric else str(key))}"'


def _cell(column: Column, cell: Cell) -> str:
    tag, scope = ("th", ' scope="row"') if column.names_rows else ("td", "")
    css = f' class="{RIGHT}"' if column.numeric else ""
    return f"<{tag}{scope}{css}{_sort_key(cell.key, column.numeric)}>{cell.html}</{tag}>"


def _heading(column: Column) -> str:
    kind = ' data-sort-type="number"' if column.numeric else ""
    css = f' class="{RIGHT}"' if column.numeric else ""
    return f'<th scope="col"{css}{kind}>{esc(column.label)}</th>'


def sortable_table(columns: Sequence[Column], rows: Sequence[Row], caption: str = "",
                   css: str = "") -> str:
    """The table in its scrolling wrapper (classes `rp-table` and `css`), `caption` (plain
    text) naming it for screen readers and the eye."""
    for row in rows:
        assert len(row.cells) == len(columns), f"{len(row.cells)} cells, {len(columns)} columns"
    head = "<thead><tr>" + "".join(_heading(column) for column in columns) + "</tr></thead>"
    body = "".join(
        "<tr" + "".join(f' {name}="{esc(value)}"' for name, value in row.attributes) + ">"
        + "".join(_cell(column, cell) for column, cell in zip(columns, row.cells, strict=True))
        + "</tr>" for row in rows)
    title = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (f'<div class="{" ".join(("rp-table", css)).strip()}"><table data-rp-sortable>'
            f"{title}{head}<tbody>{body}</tbody></table></div>")
