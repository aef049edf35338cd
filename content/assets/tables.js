// @ts-check
// Sortable tables (scripts/ridgepoint/pages/tables.py writes them, marked data-rp-sortable).
//
// The table works without this script: its rows in the page's order. Here each column's
// heading becomes a button (reached and pressed from the keyboard like any other) that sorts
// the rows by that column, ascending first, then descending, and the heading says the order
// in aria-sort, as in the WAI-ARIA sortable table pattern. A numeric column
// (data-sort-type="number") sorts by its cells' data-sort, the figure in full precision; a
// text column by data-sort or else the cell's text. A cell without a key sorts last either way.
// The order itself is sorting.js's. A module script runs after the document is parsed: the
// tables are there.

import { compare, keyOf, next } from "./sorting.js";

/** @typedef {import("./sorting.js").Order} Order */

/**
 * Sort the table's rows by the column of `heading`, in `order`, and say so on the headings.
 * @param {HTMLTableElement} table
 * @param {HTMLTableCellElement} heading
 * @param {Order} order
 */
function sortBy(table, heading, order) {
  const numeric = heading.dataset.sortType === "number";
  const column = heading.cellIndex;
  for (const body of table.tBodies) {
    const keyed = Array.from(body.rows, (row) => {
      const cell = row.cells[column];
      return { row, key: keyOf(cell?.dataset.sort ?? cell?.textContent?.trim() ?? "", numeric) };
    });
    keyed.sort((a, b) => compare(a.key, b.key, order)); // stable: ties keep the page's order
    body.append(...keyed.map(({ row }) => row));
  }
  for (const other of heading.parentElement?.children ?? []) other.removeAttribute("aria-sort");
  heading.setAttribute("aria-sort", order);
}

/** @param {HTMLTableElement} table */
function mount(table) {
  const headings = table.tHead?.rows[0]?.cells ?? [];
  for (const heading of Array.from(headings)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "rp-sort";
    button.append(...heading.childNodes);
    heading.append(button);
    button.addEventListener("click", () => {
      sortBy(table, heading, next(heading.getAttribute("aria-sort")));
    });
  }
}

for (const table of document.querySelectorAll("table[data-rp-sortable]")) {
  if (table instanceof HTMLTableElement) mount(table);
}
