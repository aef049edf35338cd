// Which runs the page makes before the reader asks (content/assets/sim/ahead.js): one step
// on from the control last moved, the way it moved first, then both ways on the control in
// focus, each written as the control itself writes its value.
// Run by tests/widget/test_widget_logic.py (node --test), no browser.

import assert from "node:assert/strict";
import { test } from "node:test";

import { AHEAD_RUNS, ahead, direction, neighbour, stepped } from "../../content/assets/sim/ahead.js";

const BATCH = {
  kind: "number", name: "batch", label: "Batch", default: 8, min: 1, max: 32, step: 1,
  unit: "", help: "", integer: true,
};
const SHARE = {
  kind: "number", name: "share", label: "Share", default: 0.5, min: 0, max: 1, step: 0.1,
  unit: "", help: "", integer: false,
};
const GPU = {
  kind: "choice", name: "gpu", label: "GPU", default: "h100", choices: ["a100", "h100", "b200"],
  help: "",
};
const NOTE = {
  kind: "text", name: "note", label: "Note", default: "", max_length: 100, help: "", file: "",
};
const SPECS = [BATCH, SHARE, GPU, NOTE];
const SHOWN = { batch: "8", share: "0.5", gpu: "h100", note: "" };

test("a step is written without binary noise and stops at the range's ends", () => {
  assert.equal(stepped(0.2, SHARE, 1), "0.3");
  assert.equal(stepped(0.7, SHARE, 1), "0.8");
  assert.equal(stepped(1, SHARE, 1), null);
  assert.equal(stepped(0, SHARE, -1), null);
  assert.equal(stepped(8, BATCH, -1), "7");
});

test("a neighbour is the next option or the next step; a text or a non-number has none", () => {
  assert.equal(neighbour(GPU, "h100", 1), "b200");
  assert.equal(neighbour(GPU, "a100", -1), null);
  assert.equal(neighbour(GPU, "tpu", 1), null);
  assert.equal(neighbour(BATCH, "32", 1), null);
  assert.equal(neighbour(BATCH, "abc", 1), null);
  assert.equal(neighbour(BATCH, "", 1), null);
  assert.equal(neighbour(NOTE, "x", 1), null);
});

test("the direction of a move is read from the values, as numbers or as option order", () => {
  assert.equal(direction(BATCH, "8", "9"), 1);
  assert.equal(direction(BATCH, "10", "9"), -1);
  assert.equal(direction(GPU, "b200", "a100"), -1);
  assert.equal(direction(BATCH, "8", "8"), null);
});

test("after a step up, the next step up comes first, the step back is already known", () => {
  const runs = ahead(SPECS, { ...SHOWN, batch: "9" }, SHOWN, null);
  assert.deepEqual(runs, [{ ...SHOWN, batch: "10" }]);
});

test("after a step down a select, the next option down comes first", () => {
  const runs = ahead(SPECS, { ...SHOWN, gpu: "h100" }, { ...SHOWN, gpu: "b200" }, null);
  assert.deepEqual(runs, [{ ...SHOWN, gpu: "a100" }]);
});

test("after a jump, both neighbours of the new value; then the focused control's", () => {
  const jumped = { ...SHOWN, batch: "20" };
  const runs = ahead(SPECS, jumped, SHOWN, "gpu");
  assert.deepEqual(runs, [
    { ...jumped, batch: "21" }, { ...jumped, batch: "19" }, { ...jumped, gpu: "b200" },
  ]);
  assert.equal(runs.length, AHEAD_RUNS);
});

test("with nothing moved, the focused control's two neighbours; nothing without focus", () => {
  assert.deepEqual(ahead(SPECS, SHOWN, SHOWN, "share"), [
    { ...SHOWN, share: "0.6" }, { ...SHOWN, share: "0.4" },
  ]);
  assert.deepEqual(ahead(SPECS, SHOWN, SHOWN, null), []);
  assert.deepEqual(ahead(SPECS, SHOWN, SHOWN, "note"), []);
});

test("several inputs moved at once (a link, an applied suggestion) give no direction", () => {
  const runs = ahead(SPECS, { ...SHOWN, batch: "9", gpu: "b200" }, SHOWN, null);
  assert.deepEqual(runs, []);
});
