// @ts-check
// A sim's result as files a reader takes away: one record (the JSON download) and the same
// record as CSV, with units in the column names, and the files' names.
//
// No DOM here (Node's test runner checks it: tests/widget/takeaway.test.mjs). Every part of a
// result becomes one table of the same shape, `{title, fields, rows}`: the inputs (one row),
// the summary (one row), each chart's data and each of the result's tables. The JSON holds
// those tables as they are; the CSV is one file of sections, one per table in the JSON's
// order: a line with the table's title, a header of its fields' columns, its rows, and an
// empty line before the next. A reader's spreadsheet opens it as it is, and every section is
// one rectangle, where a single table of everything would be mostly empty cells (the charts'
// rows share no columns). A column is the field's name with its unit, "latency_s (s)": the
// unit of an input as it declares it, of a metric or a chart's field as the closing
// parenthesis of its label or axis title says ("Done after (s)"), when that is one word.

import { titleOf } from "./chartview.js";

/** @typedef {import("./inputs.js").SimConfig} SimConfig */
/** @typedef {import("./inputs.js").Inputs} Inputs */
/** @typedef {import("./results.js").SimResult} SimResult */
/** @typedef {Record<string, any>} Spec */

/**
 * @typedef {object} Field
 * @property {string} name the key of the field in each row
 * @property {string} label what the page calls it
 * @property {string} unit "" when it has none
 * @property {string} column the CSV's column: the name, with the unit in parentheses
 */

/**
 * @typedef {object} Table
 * @property {string} title
 * @property {Field[]} fields
 * @property {Record<string, unknown>[]} rows
 */

/**
 * The JSON download.
 * @typedef {object} TakeawayRecord
 * @property {string} sim the sim's module
 * @property {string} scenario a short hash of the module and inputs (the files' names)
 * @property {string} url the page's address carrying these inputs
 * @property {Table} inputs
 * @property {Table} summary
 * @property {Table[]} charts
 * @property {Table[]} tables
 */

// A label's closing parenthesis, up to any comma: "Latency (ms, log scale)" -> "ms".
const UNIT_IN_LABEL = /\(([^(),]+)[^()]*\)\s*$/;

/**
 * The unit a label ends with in parentheses, when it is one word ("s", "GB/s", "%"): a longer
 * aside ("(queue order)", "(0 to 1)") is not a unit.
 * @param {string} label
 */
export function unitOf(label) {
  const unit = UNIT_IN_LABEL.exec(label)?.[1].trim() ?? "";
  return /\s/.test(unit) ? "" : unit;
}

/**
 * @param {string} name
 * @param {string} label
 * @param {string} unit
 * @returns {Field}
 */
function field(name, label, unit) {
  return { name, label, unit, column: unit ? `${name} (${unit})` : name };
}

/**
 * Every field the chart's encodings (and tooltips, in every layer) name, with the title
 * they give it: the one with a unit when several do (an axis title, not a tooltip's).
 * @param {Spec} spec
 * @returns {Map<string, string>} field -> title
 */
function encodedTitles(spec) {
  /** @type {Map<string, string>} */
  const titles = new Map();
  /** @param {unknown} definition */
  const take = (definition) => {
    if (!definition || typeof definition !== "object") return;
    const { field: name, title } = /** @type {Record<string, unknown>} */ (definition);
    if (typeof name !== "string" || typeof title !== "string") return;
    const known = titles.get(name);
    if (known === undefined || (!unitOf(known) && unitOf(title))) titles.set(name, title);
  };
  /** @param {Spec} view */
  const visit = (view) => {
    for (const definition of Object.values(view.encoding ?? {})) {
      for (const each of Array.isArray(definition) ? definition : [definition]) take(each);
    }
    for (const layer of view.layer ?? []) visit(layer);
  };
  visit(spec);
  return titles;
}

/**
 * A chart's data as a table: a field for every key of its rows, in the order they first
 * appear (rows need not all have the same keys: a timeline's bars and its ticks).
 * @param {Spec} spec
 * @returns {Table}
 */
export function chartTable(spec) {
  const rows = /** @type {Record<string, unknown>[]} */ (spec.data?.values ?? []);
  const titles = encodedTitles(spec);
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return {
    title: titleOf(spec),
    fields: names.map((name) => {
      const label = titles.get(name) ?? name;
      return field(name, label, unitOf(label));
    }),
    rows,
  };
}

/**
 * The inputs as the sim takes them: numbers as numbers (the page keeps them as typed).
 * @param {SimConfig} config
 * @param {Inputs} inputs
 * @returns {Table}
 */
function inputsTable(config, inputs) {
  /** @type {Record<string, unknown>} */
  const row = {};
  for (const spec of config.inputs) {
    const value = inputs[spec.name];
    row[spec.name] = spec.kind === "number" && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return {
    title: "Inputs",
    fields: config.inputs.map((spec) => field(spec.name, spec.label, spec.kind === "number" ? spec.unit : "")),
    rows: [row],
  };
}

/**
 * @param {SimConfig} config
 * @param {Record<string, unknown>} summary
 * @returns {Table}
 */
function summaryTable(config, summary) {
  return {
    title: "Summary",
    fields: Object.keys(summary).map((name) => {
      const label = config.metrics[name] ?? name;
      return field(name, label, unitOf(label));
    }),
    rows: [summary],
  };
}

/**
 * 32-bit FNV-1a of the text, as 8 hex digits: names a scenario's files, no more (a clash
 * only makes two files' names alike).
 * @param {string} text
 */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (const char of new TextEncoder().encode(text)) {
    hash = Math.imul(hash ^ char, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * A result, the inputs it was run on and the address carrying them, as one record.
 * @param {SimConfig} config
 * @param {Inputs} inputs
 * @param {SimResult} result
 * @param {string} url
 * @returns {TakeawayRecord}
 */
export function takeaway(config, inputs, result, url) {
  const table = inputsTable(config, inputs);
  const row = table.rows[0];
  const canonical = JSON.stringify(Object.keys(row).sort().map((name) => [name, row[name]]));
  return {
    sim: config.module,
    scenario: fnv1a(`${config.module}\0${canonical}`),
    url,
    inputs: table,
    summary: summaryTable(config, result.summary),
    charts: result.charts.map((spec) => chartTable(spec)),
    tables: (result.tables ?? []).map((each) => ({
      title: each.title,
      fields: each.columns.map((column) => field(column.key, column.label, unitOf(column.label))),
      rows: each.rows,
    })),
  };
}

/**
 * A value as a CSV cell: numbers as JavaScript writes them (the shortest text that reads
 * back as the same number), nothing for a missing value, quoted when it must be.
 * @param {unknown} value
 */
function cell(value) {
  const text = value === null || value === undefined ? ""
    : typeof value === "object" ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The record as CSV (RFC 4180, CRLF): each table a section (see the header).
 * @param {TakeawayRecord} record
 */
export function toCsv(record) {
  const sections = [record.inputs, record.summary, ...record.charts, ...record.tables].map((table) => [
    cell(table.title),
    table.fields.map((each) => cell(each.column)).join(","),
    ...table.rows.map((row) => table.fields.map((each) => cell(row[each.name])).join(",")),
  ].join("\r\n"));
  return `${sections.join("\r\n\r\n")}\r\n`;
}

/**
 * A download's file name: the sim, the scenario and what the file is.
 * @param {TakeawayRecord} record
 * @param {string} extension "csv", "json", "svg", "png"
 * @param {string} [part] which part of the result, when not all of it: "chart1"
 */
export function fileName(record, extension, part) {
  return `${[record.sim, record.scenario, part].filter(Boolean).join("-")}.${extension}`;
}
