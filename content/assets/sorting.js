// @ts-check
// The order of a sortable table's rows (tables.js binds it to the page), apart from the DOM
// so that Node tests it (tests/widget/sorting.test.mjs).

/** @typedef {"ascending" | "descending"} Order */

/**
 * What a cell sorts by, from its key (its data-sort, or its text): a number for a numeric
 * column (null: no figure, as a cell with an empty data-sort), else the text itself.
 * @param {string} key
 * @param {boolean} numeric
 * @returns {number | string | null}
 */
export function keyOf(key, numeric) {
  if (!numeric) return key;
  const value = key.trim() === "" ? Number.NaN : Number(key);
  return Number.isFinite(value) ? value : null;
}

/**
 * The order of two keys: missing ones last, whichever way the column sorts; text by the
 * reader's collation, with runs of digits compared as numbers.
 * @param {number | string | null} a
 * @param {number | string | null} b
 * @param {Order} order
 * @returns {number}
 */
export function compare(a, b, order) {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const sign = order === "ascending" ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return sign * (a - b);
  return sign * String(a).localeCompare(String(b), undefined, { numeric: true });
}

/**
 * The order a press on a heading asks for: ascending first, then the other way.
 * @param {string | null} current the heading's aria-sort
 * @returns {Order}
 */
export function next(current) {
  return current === "ascending" ? "descending" : "ascending";
}
