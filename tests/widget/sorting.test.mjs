// The order of a sortable table's rows (content/assets/sorting.js, bound to the page by
// tables.js): figures by value, not by text; rows without a figure last whichever the order;
// text by collation with digits as numbers; ascending on the first press, then the other way.
// Run by tests/widget/test_widget_logic.py (node --test), no browser.

import assert from "node:assert/strict";
import { test } from "node:test";

import { compare, keyOf, next } from "../../content/assets/sorting.js";

/** Keys sorted as tables.js sorts a column's cells. */
function sorted(keys, numeric, order) {
  return keys.map((key) => keyOf(key, numeric)).sort((a, b) => compare(a, b, order));
}

test("numeric keys sort by value, not by their text", () => {
  const keys = ["989000000000000.0", "2250000000000000.0", "312000000000000.0"];
  assert.deepEqual(sorted(keys, true, "ascending"), [312e12, 989e12, 2.25e15]);
  assert.deepEqual(sorted(keys, true, "descending"), [2.25e15, 989e12, 312e12]);
  assert.deepEqual(sorted(["1e-05", "2e-06"], true, "ascending"), [2e-6, 1e-5]);
});

test("a cell without a figure sorts last whichever the order", () => {
  for (const order of ["ascending", "descending"]) {
    const found = sorted(["", "8.0", "not a number", "1.0"], true, order);
    assert.deepEqual(found.slice(2), [null, null], order);
  }
  assert.equal(keyOf("", true), null);
  assert.equal(keyOf("  ", true), null);
  assert.equal(keyOf("0.0", true), 0); // zero is a figure (a dense model's experts)
});

test("text sorts by collation with digits as numbers", () => {
  const names = ["Llama 3.1 70B", "Llama 3.1 8B", "DeepSeek-V3", "llama 2 7B"];
  assert.deepEqual(sorted(names, false, "ascending"),
                   ["DeepSeek-V3", "llama 2 7B", "Llama 3.1 8B", "Llama 3.1 70B"]);
  assert.equal(keyOf(" kept as written ", false), " kept as written ");
});

test("a press sorts ascending first, then the other way", () => {
  assert.equal(next(null), "ascending");
  assert.equal(next("ascending"), "descending");
  assert.equal(next("descending"), "ascending");
  assert.equal(next("none"), "ascending");
});
