// @ts-check
// A sim's take-away toolbar: the results as CSV and JSON, each chart as SVG and PNG, and
// "Copy link", the address of the scenario shown.
//
// The script makes the toolbar (at the end of the sim's output): it does nothing without
// the script, so a page without JavaScript does not show it. Its buttons are disabled until
// a live result is on screen, and always give the result shown with the inputs it was run
// on, even while newer inputs are running. Files are saved through a link with `download`
// to a blob: URL (the security policy governs neither), made on the reader's device, so they
// work offline. Copying asks the Clipboard API; when the browser refuses, the link is shown
// in a text field, selected, for the reader to copy. What happened is said in a polite live
// region of the toolbar's own, apart from the sim's status line.

import { chartPng, chartSvg, paletteOf } from "./chartfile.js";
import { titleOf } from "./chartview.js";
import { withInputs } from "./inputs.js";
import { part, required } from "./parts.js";
import { setText } from "./results.js";
import { fileName, takeaway, toCsv } from "./takeaway.js";

// A blob: URL is revoked once its download has surely started (a click starts it at once).
const REVOKE_AFTER_MS = 10_000;

/** @typedef {import("./inputs.js").SimConfig} SimConfig */
/** @typedef {import("./inputs.js").Inputs} Inputs */
/** @typedef {import("./results.js").SimResult} SimResult */

/**
 * @typedef {object} TakeawayView
 * @property {(inputs: Inputs, result: SimResult) => void} hold the result now shown
 */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean>} properties
 * @param {(Node | string)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function element(tag, properties = {}, children = []) {
  const made = document.createElement(tag);
  Object.assign(made, properties);
  made.append(...children);
  return made;
}

/**
 * Save `blob` as a file named `name`.
 * @param {Blob} blob
 * @param {string} name
 */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  element("a", { href: url, download: name }).click();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}

/**
 * The sim's chart figures, in order (the build writes one per chart of the result).
 * @param {HTMLElement} root
 */
function figures(root) {
  /** @type {HTMLElement[]} */
  const found = [];
  for (let figure = part(root, "chart", 0); figure; figure = part(root, "chart", found.length)) found.push(figure);
  return found;
}

/**
 * @param {HTMLElement} root the sim's element
 * @param {SimConfig} config
 * @returns {TakeawayView}
 */
export function mountTakeaway(root, config) {
  /** @type {{inputs: Inputs, result: SimResult} | null} */
  let held = null;
  const status = element("p", { className: "sim-takeaway-status" });
  status.setAttribute("role", "status");
  /** @type {HTMLInputElement | null} the link to copy by hand, while the browser refuses */
  let link = null;
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @type {HTMLElement[]} */
  const chartNames = [];

  const record = () => {
    const { inputs, result } = /** @type {NonNullable<typeof held>} */ (held);
    return takeaway(config, inputs, result, withInputs(config, inputs, window.location.href));
  };

  /**
   * A button that does `act`, and says what it did or why it could not.
   * @param {string} text
   * @param {string} label its name to assistive technology: the text and what it is for
   * @param {() => Promise<string>} act returns what to announce
   */
  const button = (text, label, act) => {
    const made = element("button", { type: "button", className: "sim-takeaway-button", disabled: true }, [text]);
    if (label !== text) made.setAttribute("aria-label", label);
    made.addEventListener("click", () => {
      act().then((said) => setText(status, said),
        (error) => setText(status, `${label} failed: ${/** @type {Error} */ (error).message}.`));
    });
    buttons.push(made);
    return made;
  };

  /**
   * @param {string} name what the row is about
   * @param {HTMLButtonElement[]} row
   */
  const group = (name, row) => {
    const heading = element("span", { className: "sim-takeaway-name" }, [name]);
    return { heading, row: element("div", { className: "sim-takeaway-row" }, [heading, ...row]) };
  };

  /**
   * @param {Blob} blob
   * @param {string} name
   */
  const saved = (blob, name) => {
    save(blob, name);
    return `Saved ${name}.`;
  };

  const copy = async () => {
    const url = record().url;
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      if (!link) {
        link = element("input", { type: "text", readOnly: true, className: "sim-takeaway-url", id: `${root.id}-link` });
        status.before(element("p", { className: "sim-takeaway-fallback" }, [
          element("label", { htmlFor: link.id }, ["Link to these results"]), " ", link,
        ]));
      }
      link.value = url;
      link.focus();
      link.select();
      return "The browser did not let the page copy: the link is selected above, to copy yourself.";
    }
    link?.parentElement?.remove();
    link = null;
    return "Link copied.";
  };

  const results = group("Results", [
    button("CSV", "Results as CSV", async () => {
      const made = record();
      return saved(new Blob([toCsv(made)], { type: "text/csv;charset=utf-8" }), fileName(made, "csv"));
    }),
    button("JSON", "Results as JSON", async () => {
      const made = record();
      return saved(new Blob([`${JSON.stringify(made, null, 2)}\n`], { type: "application/json" }), fileName(made, "json"));
    }),
    button("Copy link", "Copy link", copy),
  ]);
  const rows = [results.row];
  for (const [index, figure] of figures(root).entries()) {
    const number = index + 1;
    /**
     * @param {string} kind
     * @param {typeof chartSvg} draw
     */
    const image = (kind, draw) => button(kind.toUpperCase(), `Chart ${number} as ${kind.toUpperCase()}`, async () => {
      const { result } = /** @type {NonNullable<typeof held>} */ (held);
      const made = record();
      return saved(await draw(result.charts[index], paletteOf(figure)), fileName(made, kind, `chart${number}`));
    });
    const chart = group(`Chart ${number}`, [image("svg", chartSvg), image("png", chartPng)]);
    chartNames.push(chart.heading);
    rows.push(chart.row);
  }
  const bar = element("div", { className: "sim-takeaway" }, [...rows, status]);
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Take these results away");
  required(root, "output").append(bar);

  return {
    hold(inputs, result) {
      held = { inputs, result };
      for (const each of buttons) each.disabled = false;
      chartNames.forEach((heading, index) => {
        const spec = result.charts[index];
        setText(heading, spec ? `Chart ${index + 1}: ${titleOf(spec)}` : `Chart ${index + 1}`);
      });
    },
  };
}
