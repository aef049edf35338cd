"""The calibration page's tables: errors per category, every point, and the sources.

The errors come first, one row per category with both sets side by side and whether the
category meets its targets, so a reader sees at a glance where the physics can be trusted.
The points follow, folded per category in tables a reader can sort (ridgepoint.pages.tables),
each labelled by what was measured and linked to its publication, with where in it the
figure is on a line below and a numbered link to the publication's entry under Sources (who
measured, how the points were split, what they assume): the source one click away, with no
wide column. Every string from YAML is escaped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ridgepoint.base.markup import esc, link
from ridgepoint.catalogue.calibration import Errors, Row, by_target, summary
from ridgepoint.catalogue.categories import TARGETS, Category, held_as
from ridgepoint.content.calibration_records import CalibrationSet
from ridgepoint.pages import tables
from ridgepoint.pages.calibration_chart import CLASSES
from ridgepoint.pages.common import anchor_slug
from ridgepoint.pages.tables import Cell, Column

SETS = ("training", "held_out")
VARIANTS = ("bf16", "fp8", "fp4", "nccl", "custom", "nvls")  # a class's rows in this order
RIGHT = f' class="{tables.RIGHT}"'  # a right-aligned cell of the category table


def ordered(categories: Iterable[Category], rows: Sequence[Row]) -> list[Category]:
    """Categories by kernel profile (the one with most points first), then kernel class
    (whole steps last), then format."""
    points = Counter(row.category.profile for row in rows)
    kinds = list(CLASSES)
    return sorted(set(categories), key=lambda c: (
        -points[c.profile], c.profile, kinds.index(c.kind) if c.kind in kinds else len(kinds),
        c.kind, VARIANTS.index(c.variant) if c.variant in VARIANTS else len(VARIANTS),
        c.variant))


def short_label(category: Category) -> str:
    """The label without its profile, which the table's group heading gives."""
    return category.label.removesuffix(f", {category.profile}")


def points_id(category: Category) -> str:
    return f"points-{anchor_slug(' '.join(category))}"


def source_id(publication: CalibrationSet) -> str:
    return f"source-{publication.slug}"


def verdict(kind: str, held_out: Errors | None, trained: bool = True) -> tuple[str, str]:
    """(data-target value, words) for a category: met, missed (naming which target, or
    both), untested (no held-out points), assumed (no training points: its constants were
    fitted to other points, so its errors are shown, not held to the target) or none (no
    target for its kind)."""
    if kind not in TARGETS:
        return "none", "no target"
    if held_out is None:
        return "untested", "no held-out points"
    if not trained:
        return "assumed", "not held: no training points of its own"
    median, p90 = TARGETS[kind]
    over = [name for name, value, most in (("median", held_out.median, median),
                                            ("p90", held_out.p90, p90))
            if most is not None and value > most]
    if not over:
        return "met", "met"
    return "missed", f"missed ({'both' if len(over) == 2 else over[0]})"


def targets_note() -> str:
    """The targets in words, from TARGETS."""
    kernel = TARGETS["gemm"]
    return (f"Targets, on the held-out points: for each kernel class a median |error| of at "
            f"most {kernel[0]:.0%} and a 90th percentile of at most {kernel[1]:.0%}; for "
            f"offline throughput a median of at most {TARGETS['throughput'][0]:.0%}. The "
            f"classes are GEMMs per format, all-reduce per implementation, and prefill "
            f"attention, decode attention and MoE layers with every format together, each on "
            f"its GPU generation: the rows below are finer, and a finer row's verdict is its "
            f"class's. The targets hold the classes fitted to training points of their own; one "
            f"without any (a GPU priced with another generation's constants, an algorithm "
            f"forced where the fit never saw it run) is shown, not held. A category with no "
            f"held-out points has only its training errors, in-sample. The ratio is ours / "
            f"measured (below 1, ours is faster), and |error| is |ratio - 1|.")


def _cell(text: str, over: bool = False) -> str:
    return f"<td{RIGHT}>{'<strong>' + text + '</strong>' if over else text}</td>"


def category_table(rows: Sequence[Row], profiles: Mapping[str, str]) -> str:
    """One row per category, grouped by kernel profile (`profiles` names them): both sets'
    points, median and p90 |error|, the median ratio (held out, else training) and the
    verdict on the targets; the label links to the category's points."""
    errors, targets = summary(rows), by_target(rows)
    head = (
        '<thead><tr><th rowspan="2">Category</th><th colspan="3">Training</th>'
        '<th colspan="3">Held out</th><th rowspan="2">Median ratio</th>'
        '<th rowspan="2">Targets</th></tr><tr>'
        + "".join(f"<th{RIGHT}>{name}</th>" for name in ("Points", "Median", "p90") * 2)
        + "</tr></thead>")
    groups: dict[str, str] = {}
    for category in ordered((category for category, _ in errors), rows):
        by_set = {name: errors.get((category, name)) for name in SETS}
        median, p90 = (TARGETS.get(category.kind, (None, None)) if by_set["training"]
                       else (None, None))
        cells = ""
        for name in SETS:
            found = by_set[name]
            if found is None:
                cells += f"<td{RIGHT}>0</td><td{RIGHT}>–</td><td{RIGHT}>–</td>"
                continue
            held = name == "held_out"
            cells += (_cell(str(found.count))
                      + _cell(f"{found.median:.0%}", held and median is not None
                              and found.median > median)
                      + _cell(f"{found.p90:.0%}", held and p90 is not None and found.p90 > p90))
        ratio = by_set["held_out"] or by_set["training"]
        assert ratio is not None  # a category in the summary has points in a set
        which = "" if by_set["held_out"] else '<span class="rp-where">training</span>'
        status, words = _held_verdict(category, targets)
        groups.setdefault(category.profile, "")
        groups[category.profile] += (
            f'<tr data-category="{esc(category.label)}" data-target="{status}">'
            f'<th scope="row"><a href="#{points_id(category)}">{esc(short_label(category))}</a>'
            f"</th>{cells}{_cell(f'{ratio.median_ratio:.2f}{which}')}<td>{words}</td></tr>")
    bodies = "".join(
        f'<tbody><tr class="rp-group"><th colspan="9" scope="rowgroup"><span>'
        f"{esc(profiles.get(profile, profile))}: points on {esc(_gpus(rows, profile))}"
        f"</span></th></tr>"
        f"{body}</tbody>" for profile, body in groups.items())
    return f'<div class="rp-table rp-categories"><table>{head}{bodies}</table></div>'


def _held_verdict(category: Category,
                  targets: Mapping[Category, tuple[Errors | None, Errors | None]]
                  ) -> tuple[str, str]:
    """A category's verdict: that of the class the targets hold it in (itself, or its kind
    with every format together, named after the verdict)."""
    group = held_as(category)
    training, held = targets.get(group, (None, None))
    status, words = verdict(category.kind, held, trained=training is not None)
    if group != category and held is not None and status in ("met", "missed"):
        words += (f" as one class ({held.median:.0%} median, {held.p90:.0%} p90 over "
                  f"{held.count} held-out points)")
    return status, words


def _gpus(rows: Sequence[Row], profile: str) -> str:
    """The GPUs of a profile's points in a set, as their keys, upper case."""
    found = dict.fromkeys(row.point.gpu for row in rows
                          if row.category.profile == profile and row.point.set is not None)
    return ", ".join(gpu.upper() for gpu in found)


def _time(seconds: float) -> str:
    unit, scale = next((u, s) for u, s in (("s", 1), ("ms", 1e-3), ("µs", 1e-6))
                       if seconds >= s or u == "µs")
    return f"{seconds / scale:,.4g} {unit}"


def _figure(row: Row, seconds: float) -> Cell:
    """Measured or ours as the source gives it, sorted by its value: a throughput run's as
    output tokens per second per GPU, anything else as a time."""
    if row.point.measured_tokens_per_s_per_gpu is not None:
        return Cell(f"{1 / seconds:,.0f} tok/s/GPU", 1 / seconds)
    return Cell(_time(seconds), seconds)


def _point(row: Row, number: int) -> str:
    """The point's cell: what was measured, linked to the publication (or its entry under
    Sources when it has no address), then where in it and the numbered link to that entry."""
    publication, point = row.publication, row.point
    entry = source_id(publication)
    label = link(publication.publication.url or f"#{entry}", point.what)
    return (f'{label}<span class="rp-where">{esc(point.where)} '
            f"{tables.reference(number, entry)}</span>")


def _status(row: Row, reasons: bool) -> str:
    """The last cell: the point's set, or (`reasons`) its band and whether it is within it,
    or why it has none."""
    point = row.point
    if not reasons:
        return (point.set or "").replace("_", " ")
    if point.band is None:
        return esc(point.unbanded or "")
    return f"±{point.band:.0%}, {'within' if row.within else 'outside'}"


def points_table(rows: Sequence[Row], numbers: Mapping[str, int], reasons: bool = False) -> str:
    """The points as a compact sortable table: the point, its GPU, measured, ours, the ratio
    and its set (or, with `reasons`, its band or why it has none). Every row carries its set
    and an id from its key; a row with a band, or shown for want of one, its data-band."""
    columns = (Column("Point"), Column("GPU"), Column("Measured", numeric=True),
               Column("Ours", numeric=True), Column("Ours / measured", numeric=True),
               Column("Band, or why none" if reasons else "Set"))
    table_rows = []
    for row in rows:
        point = row.point
        band = {True: "within", False: "outside", None: "none"}[row.within]
        banded = [("data-band", band)] if point.band is not None or reasons else []
        table_rows.append(tables.Row(
            (Cell(_point(row, numbers[row.publication.slug]), point.what),
             Cell(esc(point.gpu.upper())), _figure(row, row.measured_s), _figure(row, row.ours_s),
             Cell(f"{row.ratio:.2f}", row.ratio),
             Cell(_status(row, reasons))),
            (("id", f"point-{point.key}"), ("data-set", point.set or ""), *banded)))
    return tables.sortable_table(columns, table_rows)


def points_by_category(rows: Sequence[Row], numbers: Mapping[str, int]) -> str:
    """The points in a set, folded per category (in the table's order), out of search."""
    grouped: dict[Category, list[Row]] = {}
    for row in rows:
        grouped.setdefault(row.category, []).append(row)
    blocks = []
    for category in ordered(grouped, rows):
        group = grouped[category]
        counts = ", ".join(f"{sum(row.point.set == name for row in group)} "
                           f"{name.replace('_', ' ')}" for name in SETS)
        # Left out of the search index (Material's data-search-exclude): every point's
        # description and whereabouts would double the index every page's search loads.
        blocks.append(f'<details class="rp-points" id="{points_id(category)}" '
                      f"data-search-exclude>"
                      f"<summary>{esc(category.label)} ({counts})</summary>"
                      f"{points_table(group, numbers)}</details>")
    return "".join(blocks)


def numbered(rows: Sequence[Row]) -> dict[str, int]:
    """Each publication's number under Sources (from 1), in the rows' order."""
    slugs = dict.fromkeys(row.publication.slug for row in rows)
    return {slug: number for number, slug in enumerate(slugs, 1)}


def sources(rows: Sequence[Row]) -> str:
    """Each publication once, numbered as the points' links: its citation, who measured,
    how its points were split and what they assume, and how many points it gave."""
    publications = {row.publication.slug: row.publication for row in rows}
    items = ""
    for slug in numbered(rows):
        publication = publications[slug]
        citation = publication.publication
        title = link(citation.url, citation.title) if citation.url else esc(citation.title)
        mine = [row for row in rows if row.publication.slug == slug]
        counts = ", ".join(f"{count} {name}" for name, count in (
            ("training", sum(row.point.set == "training" for row in mine)),
            ("held out", sum(row.point.set == "held_out" for row in mine)),
            ("in no set", sum(row.point.set is None for row in mine))) if count)
        parts = [f"<p>{title}</p>", f"<p>Measured by {esc(publication.measured_by)}. "
                                    f"{len(mine)} points: {counts}.</p>"]
        if publication.split:
            parts.append(f"<p><strong>Split</strong>: {esc(publication.split)}</p>")
        if publication.assumptions:
            parts.append(f"<p><strong>Assumed</strong>: {esc(publication.assumptions)}</p>")
        items += f'<li id="{source_id(publication)}">{"".join(parts)}</li>'
    return f'<ol class="rp-sources">{items}</ol>'

