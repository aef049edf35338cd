// A sim's inputs as the page keeps them (content/assets/sim/inputs.js): compared as text,
// carried in the URL under the sim's own key, and shown by a slider only when they fit it.
// Run by tests/widget/test_widget_logic.py (node --test), no browser.

import assert from "node:assert/strict";
import { test } from "node:test";

import { fromQuery, param, sameInputs, sliderValue, withInputs } from "../../content/assets/sim/inputs.js";

const CONFIG = {
  module: "batching",
  key: "batching-2",
  files: [],
  inputs: [],
  show: ["batch_size", "seed"],
  start: { batch_size: 8, seed: 1, policy: "static" },
  metrics: {},
};
const PAGE = "https://example.org/ridgepoint/explainers/batching/";
const SLIDER = {
  kind: "number", name: "batch_size", label: "Batch size", default: 8, min: 1, max: 32,
  step: 1, unit: "slots", help: "", integer: true,
};

test("inputs that read the same as text are the same, whatever their types", () => {
  assert.ok(sameInputs({ batch_size: 8, seed: "1" }, { batch_size: "8", seed: 1 }));
  assert.ok(!sameInputs({ batch_size: 8 }, { batch_size: "8.0" }));
  assert.ok(!sameInputs({ batch_size: 8 }, {}));
});

test("a URL parameter is the sim's key and the input's name", () => {
  assert.equal(param("batching-2", "seed"), "batching-2.seed");
});

test("the URL's values replace the starting ones, for the inputs that have controls only", () => {
  const values = fromQuery(CONFIG, "?batching-2.seed=5&batching-2.policy=x&batching.batch_size=3");
  assert.deepEqual(values, { batch_size: 8, seed: "5", policy: "static" });
  assert.deepEqual(fromQuery(CONFIG, ""), CONFIG.start);
  assert.notEqual(fromQuery(CONFIG, ""), CONFIG.start); // a copy: the start stays as built
});

test("the URL carries only the inputs that differ from the start, beside the page's own", () => {
  const href = withInputs(CONFIG, { batch_size: "8", seed: "5", policy: "static" }, `${PAGE}?q=1#top`);
  assert.equal(href, `${PAGE}?q=1&batching-2.seed=5#top`);
  assert.equal(withInputs(CONFIG, { ...CONFIG.start }, href), `${PAGE}?q=1#top`);
});

test("inputs written into the URL are read back as they were", () => {
  const values = { batch_size: "12", seed: "a b&c", policy: "static" };
  const url = new URL(withInputs(CONFIG, values, PAGE));
  assert.deepEqual(fromQuery(CONFIG, url.search), values);
});

test("a slider shows a typed value only when it is a number within its range", () => {
  assert.equal(sliderValue(" 12 ", SLIDER), "12");
  assert.equal(sliderValue("32", SLIDER), "32");
  for (const raw of ["", "  ", "abc", "0", "33", "Infinity", "NaN"]) assert.equal(sliderValue(raw, SLIDER), null, raw);
});

test("a text input's value travels in the URL escaped, and reads back exactly", () => {
  const config = { ...CONFIG, key: "plan", show: ["measured", "seed"], start: { measured: "", seed: 1 } };
  const measured = "vllm p50 llama-3.1-8b; c16 1000/200 55.12 15.71; r6 63.2 14.1 #2 a+b=c&d 100% é";
  const href = withInputs(config, { measured, seed: "1" }, `${PAGE}#top`);
  const url = new URL(href);
  assert.equal(url.hash, "#top"); // its "#" escaped: the fragment is still the page's own
  assert.deepEqual([...url.searchParams.keys()], ["plan.measured"]); // its "&" and "=" too
  assert.deepEqual(fromQuery(config, url.search), { measured, seed: 1 });
  // Emptied again, it leaves the address as it was.
  assert.equal(withInputs(config, { measured: "", seed: "1" }, href), `${PAGE}#top`);
});
