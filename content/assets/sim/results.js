// @ts-check
// A sim's results in words and numbers: the status line, the summary table, the other
// tables, a result's suggested inputs (a button), and whether what is shown belongs to the
// inputs the controls show.
//
// Results are written as the build wrote them (format.js is the twin of the build's display),
// and every write touches only what changed: the page then restyles and lays out the cells
// whose text changed, not every row of every table.

import { display } from "./format.js";
import { part, required } from "./parts.js";

// Results stay readable this long after they stop matching the inputs before they fade.
const FADE_DELAY_MS = 250;

/**
 * @typedef {object} Table
 * @property {string} title
 * @property {{key: string, label: string}[]} columns
 * @property {Record<string, unknown>[]} rows
 * @property {boolean} [open] shown unfolded (the build writes it; the page keeps it)
 */

/**
 * What a sim returns (sims/kit/contract.py), as far as the page reads it.
 * @typedef {object} SimResult
 * @property {Record<string, unknown>} summary metric name -> number, string or bool
 * @property {object[]} charts Vega-Lite specs
 * @property {Table[]} [tables]
 * @property {{label: string, inputs: Record<string, string | number>}} [apply] inputs the
 *   sim suggests (the planner's fit to measurements), offered as a button
 */

/**
 * @typedef {object} ResultsView
 * @property {(text: string) => void} say the status line
 * @property {(step: number, of: number, text: string) => void} progress while Python starts
 * @property {() => void} hideProgress
 * @property {(done: number, total: number, text: string) => void} working a long run's
 *   progress (the planner's search), shown until its result is written
 * @property {(result: SimResult, pending?: string[]) => void} write the summary and the
 *   tables; `pending`: the summary figures still to come (a run's first part)
 * @property {(stale: boolean) => void} markStale
 * @property {() => void} dispose
 */

/**
 * @param {HTMLElement} element
 * @param {string} text
 */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** @param {string[]} texts */
function row(texts) {
  const tr = document.createElement("tr");
  for (const text of texts) tr.append(Object.assign(document.createElement("td"), { textContent: text }));
  return tr;
}

// A figure still being computed (the first part of a run answered in two, sims/kit/phased.py).
const PENDING = "…";

/**
 * The summary keeps its rows when a run has the same metrics as the last (every run of a
 * sim but the odd one); only the values whose text changed are written. A figure named in
 * `pending` shows PENDING, its row marked data-pending (and its cell aria-busy) until a
 * run's whole answer writes it.
 * @param {HTMLTableSectionElement} body
 * @param {Record<string, unknown>} summary
 * @param {Record<string, string>} metrics metric name -> label
 * @param {ReadonlySet<string>} pending
 */
function writeSummary(body, summary, metrics, pending) {
  const entries = Object.entries(summary);
  const rows = body.rows;
  if (rows.length !== entries.length || !entries.every(([name], i) => rows[i].dataset.key === name)) {
    body.replaceChildren(...entries.map(([name, value]) => {
      const line = document.createElement("tr");
      line.dataset.key = name;
      if (typeof value === "string") line.dataset.text = ""; // as the build marks a sentence
      const label = Object.assign(document.createElement("th"), { scope: "row", textContent: metrics[name] ?? name });
      line.append(label, document.createElement("td"));
      return line;
    }));
  }
  entries.forEach(([name, value], i) => {
    const row = body.rows[i];
    const waiting = pending.has(name);
    setText(row.cells[1], waiting ? PENDING : display(value));
    if (waiting !== ("pending" in row.dataset)) {
      row.toggleAttribute("data-pending", waiting);
      row.cells[1].toggleAttribute("aria-busy", waiting);
    }
  });
}

/**
 * @param {HTMLTableSectionElement} body
 * @param {Table} table
 */
function writeTable(body, table) {
  const texts = table.rows.map((line) => table.columns.map((column) => display(line[column.key])));
  const rows = body.rows;
  if (rows.length === texts.length && texts.every((line, i) => rows[i].cells.length === line.length)) {
    texts.forEach((line, i) => line.forEach((text, j) => setText(rows[i].cells[j], text)));
    return;
  }
  body.replaceChildren(...texts.map((line) => row(line)));
}

/**
 * @param {HTMLElement} root the sim's element
 * @param {Record<string, string>} metrics metric name -> label, for a summary with new rows
 * @param {(inputs: Record<string, string | number>) => void} apply called with a result's
 *   suggested inputs when the reader presses its button
 * @returns {ResultsView}
 */
export function mountResults(root, metrics, apply) {
  const status = required(root, "status");
  const bar = /** @type {HTMLProgressElement} */ (required(root, "progress"));
  const output = required(root, "output");
  const offer = /** @type {HTMLButtonElement} */ (required(root, "apply"));
  /** @type {Record<string, string | number> | null} */
  let suggested = null;
  offer.addEventListener("click", () => {
    if (suggested) apply(suggested);
  });
  const summary = /** @type {HTMLTableSectionElement} */ (required(root, "summary"));
  /** @type {ReturnType<typeof setTimeout> | null} */
  let fadeTimer = null;
  let searching = false; // the bar shows a long run's progress (`working`), not Python's start

  return {
    say(text) {
      setText(status, text); // an answer, or why there is none: a run's progress is over
      if (searching) bar.hidden = true;
      searching = false;
    },
    progress(step, of, text) {
      setText(status, `${text}… The results below were computed when this page was built.`);
      bar.hidden = false;
      bar.value = step;
      bar.max = of;
    },
    hideProgress() {
      bar.hidden = true;
    },
    working(done, total, text) {
      setText(status, `${text}…`);
      searching = true;
      bar.hidden = false;
      bar.value = done;
      bar.max = total;
    },
    write(result, pending = []) {
      writeSummary(summary, result.summary, metrics, new Set(pending));
      suggested = result.apply?.inputs ?? null;
      offer.hidden = suggested === null;
      if (result.apply) setText(offer, result.apply.label);
      (result.tables ?? []).forEach((table, index) => {
        const body = /** @type {HTMLTableSectionElement | null} */ (part(root, "table", index));
        if (body) writeTable(body, table);
      });
    },
    // data-stale says at once whether the results shown belong to the inputs; they fade
    // (data-fading) only when they stay stale for a moment (Python starting, a slow run). Most
    // runs answer in milliseconds: a fade started and undone within a frame would flicker, and
    // make the browser paint the charts on a layer of their own and back for nothing.
    markStale(stale) {
      output.dataset.stale = String(stale);
      if (stale) {
        fadeTimer ??= setTimeout(() => {
          output.dataset.fading = "";
        }, FADE_DELAY_MS);
      } else {
        if (fadeTimer !== null) clearTimeout(fadeTimer);
        fadeTimer = null;
        delete output.dataset.fading;
      }
    },
    dispose() {
      if (fadeTimer !== null) clearTimeout(fadeTimer);
    },
  };
}
