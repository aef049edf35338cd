// A run compared with a pinned one (content/assets/sim/compare.js): the pinned inputs in the
// URL, the signed change of a summary figure, and a chart with the pinned run's marks.
// Run by tests/widget/test_widget_logic.py (node --test), no browser.

import assert from "node:assert/strict";
import { test } from "node:test";

import { change, ghosted, pinnedFromQuery, withPinned } from "../../content/assets/sim/compare.js";

const CONFIG = {
  module: "goodput",
  key: "goodput",
  files: [],
  inputs: [],
  show: ["request_rate", "seed"],
  first: [],
  start: { request_rate: 10, seed: 1, policy: "x" },
  metrics: {},
};
const PAGE = "https://example.org/ridgepoint/explainers/goodput/?goodput.seed=3";

test("a page without a pin in its URL pins nothing", () => {
  assert.equal(pinnedFromQuery(CONFIG, "?goodput.seed=3"), null);
});

test("the pinned inputs go into the URL, only those that differ from the start, and come back", () => {
  const url = withPinned(CONFIG, { request_rate: "16", seed: 1, policy: "x" }, PAGE);
  const query = new URL(url).searchParams;
  assert.equal(query.get("goodput.pin"), "1");
  assert.equal(query.get("goodput.pin.request_rate"), "16");
  assert.equal(query.get("goodput.pin.seed"), null);
  assert.equal(query.get("goodput.seed"), "3"); // the reader's own inputs stay
  assert.deepEqual(pinnedFromQuery(CONFIG, new URL(url).search), { request_rate: "16", seed: 1, policy: "x" });
});

test("unpinning takes every pin parameter out of the URL", () => {
  const pinned = withPinned(CONFIG, { request_rate: "16", seed: "2", policy: "x" }, PAGE);
  assert.equal(withPinned(CONFIG, null, pinned), PAGE);
});

test("a change is signed, in percent of the pinned figure", () => {
  assert.equal(change(11.2, 10), "+12% vs pinned");
  assert.equal(change(9.69, 10), "\u22123.1% vs pinned");
  assert.equal(change(0.5, 0.5), "same as pinned");
  assert.equal(change(3, 0), "+3 vs pinned");
  assert.equal(change("yes", "no"), "pinned: no");
  assert.equal(change(true, true), "same as pinned");
});

const LINE = {
  title: "t",
  data: { name: "table", values: [{ x: 1, y: 2, s: "a" }] },
  encoding: { x: { field: "x", type: "quantitative", scale: { domain: [0, 5] } } },
  layer: [
    { mark: { type: "line", point: true }, encoding: { y: { field: "y", type: "quantitative" }, tooltip: [{ field: "y" }] } },
    { mark: "text", encoding: { text: { value: "label" } } },
  ],
  resolve: { scale: { y: "independent" } },
};

test("each drawn layer is paired with the pinned run's, faded, over the pinned rows", () => {
  const pinned = { ...LINE, data: { name: "table", values: [{ x: 3, y: 4, s: "a" }] } };
  const spec = ghosted(LINE, pinned);
  assert.deepEqual(spec.data, LINE.data);
  assert.deepEqual(spec.resolve, LINE.resolve);
  const [pair, text] = spec.layer;
  assert.deepEqual(pair.layer[0], LINE.layer[0]);
  const ghost = pair.layer[1];
  assert.deepEqual(ghost.data, { values: [{ x: 3, y: 4, s: "a" }] });
  assert.equal(ghost.mark.opacity, 0.35);
  assert.equal(ghost.mark.clip, true);
  assert.equal(ghost.encoding.tooltip, undefined);
  assert.deepEqual(text, LINE.layer[1]); // labels are not repeated
});

test("a chart of one view becomes a layer of two, filled marks as a dashed outline", () => {
  const bars = {
    data: { name: "table", values: [{ x: "a", y: 1 }] },
    mark: "bar",
    encoding: { x: { field: "x" }, y: { field: "y", scale: { domain: [0, 2], type: "linear" } } },
  };
  const pinned = {
    ...bars,
    data: { name: "table", values: [{ x: "a", y: 3 }] },
    encoding: { ...bars.encoding, y: { field: "y", scale: { domain: [0, 4], type: "linear" } } },
  };
  const spec = ghosted(bars, pinned);
  assert.equal(spec.usermeta.pinned, true); // drawn by a new view each run (livechart.js)
  assert.equal(spec.mark, undefined);
  const [own, ghost] = spec.layer[0].layer;
  assert.deepEqual(own, { mark: "bar", encoding: bars.encoding });
  assert.equal(ghost.mark.filled, false);
  assert.deepEqual(ghost.mark.strokeDash, [4, 2]);
  assert.deepEqual(ghost.encoding.y.scale, { type: "linear" }); // drawn on the run's own range
});

test("without a pinned chart the spec is the run's own", () => {
  assert.equal(ghosted(LINE, undefined), LINE);
});
