// A result as the files a reader takes away (content/assets/sim/takeaway.js): one record for
// the JSON, the same tables as CSV sections, units in the columns' names.
// Run by tests/widget/test_widget_logic.py (node --test), no browser.

import assert from "node:assert/strict";
import { test } from "node:test";

import { chartTable, fileName, takeaway, toCsv, unitOf } from "../../content/assets/sim/takeaway.js";

const CONFIG = {
  module: "batching",
  key: "batching",
  files: [],
  inputs: [
    { kind: "number", name: "batch_size", label: "Batch size", default: 4, min: 1, max: 32, step: 1,
      unit: "slots", help: "", integer: true },
    { kind: "choice", name: "gpu", label: "GPU", default: "H100", choices: ["H100", "A100"], help: "" },
  ],
  show: ["batch_size", "gpu"],
  start: { batch_size: 4, gpu: "H100" },
  metrics: { makespan_s: "Time until every request is done (s)", fits: "Everything fits" },
};
const CHART = {
  title: { text: "Latency, by request", limit: { expr: "width" } },
  data: { name: "table", values: [{ request: 1, latency_s: 1.5 }, { request: 2, latency_s: 0.25, note: "a, \"b\"" }] },
  layer: [{ encoding: {
    x: { field: "request", type: "ordinal", title: "Request (queue order)" },
    y: { field: "latency_s", title: "Done" },
    tooltip: [{ field: "latency_s", title: "Done after (s)" }],
  } }],
};
const RESULT = {
  summary: { makespan_s: 2.5, fits: true },
  charts: [CHART],
  tables: [{ title: "Each request", columns: [{ key: "request", label: "Request" }, { key: "s", label: "Done (ms)" }],
    rows: [{ request: 1, s: null }] }],
};
const URL = "https://example.org/explainers/batching/?batching.batch_size=8";

test("a unit is the one word a label closes with in parentheses", () => {
  assert.equal(unitOf("Time until done (s)"), "s");
  assert.equal(unitOf("Latency (ms, log scale)"), "ms");
  assert.equal(unitOf("Bandwidth (GB/s)"), "GB/s");
  assert.equal(unitOf("Request (queue order)"), "");
  assert.equal(unitOf("Everything fits"), "");
});

test("a chart's table has every field of its rows, named with the unit its encodings give", () => {
  const table = chartTable(CHART);
  assert.equal(table.title, "Latency, by request");
  assert.deepEqual(table.fields.map((field) => field.column), ["request", "latency_s (s)", "note"]);
  assert.equal(table.fields[1].label, "Done after (s)");
  assert.equal(table.rows, CHART.data.values);
});

test("the record holds the inputs as the sim takes them, the summary, charts and tables", () => {
  const record = takeaway(CONFIG, { batch_size: "8", gpu: "A100" }, RESULT, URL);
  assert.equal(record.sim, "batching");
  assert.equal(record.url, URL);
  assert.deepEqual(record.inputs.rows, [{ batch_size: 8, gpu: "A100" }]);
  assert.deepEqual(record.inputs.fields.map((field) => field.column), ["batch_size (slots)", "gpu"]);
  assert.deepEqual(record.summary.fields.map((field) => field.column), ["makespan_s (s)", "fits"]);
  assert.deepEqual(record.summary.rows, [RESULT.summary]);
  assert.deepEqual(record.charts.map((chart) => chart.title), ["Latency, by request"]);
  assert.deepEqual(record.tables[0].fields.map((field) => field.column), ["request", "s (ms)"]);
});

test("the scenario names the files and follows the inputs, not how they were typed", () => {
  const record = takeaway(CONFIG, { batch_size: "8", gpu: "A100" }, RESULT, URL);
  assert.match(record.scenario, /^[0-9a-f]{8}$/);
  assert.equal(takeaway(CONFIG, { gpu: "A100", batch_size: 8 }, RESULT, URL).scenario, record.scenario);
  assert.notEqual(takeaway(CONFIG, { batch_size: 9, gpu: "A100" }, RESULT, URL).scenario, record.scenario);
  assert.equal(fileName(record, "json"), `batching-${record.scenario}.json`);
  assert.equal(fileName(record, "png", "chart1"), `batching-${record.scenario}-chart1.png`);
});

test("the CSV is one section per table of the JSON: title, columns, rows", () => {
  const record = takeaway(CONFIG, { batch_size: "8", gpu: "A100" }, RESULT, URL);
  assert.equal(toCsv(record), [
    "Inputs", "batch_size (slots),gpu", "8,A100", "",
    "Summary", "makespan_s (s),fits", "2.5,true", "",
    "\"Latency, by request\"", "request,latency_s (s),note", "1,1.5,", "2,0.25,\"a, \"\"b\"\"\"", "",
    "Each request", "request,s (ms)", "1,", "",
  ].join("\r\n"));
});
