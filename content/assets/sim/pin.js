// @ts-check
// "Pin this run": a sim keeps the result shown, and every later run is drawn beside it (the
// pinned run's marks faded on every chart, the change beside every summary figure) until it
// is unpinned. The pinned inputs are kept in the URL (compare.js), so a link opens the
// comparison: the page runs the pinned inputs first, then the reader's.
//
// The script makes the button (above the summary): without it nothing could be pinned, so
// the prerendered page is as the build wrote it. Its button is disabled until a live result
// is on screen; what pinning did is said in the sim's own polite live region.

import { change, ghosted, pinnedFromQuery, withPinned } from "./compare.js";
import { required } from "./parts.js";
import * as python from "./python.js";
import { setText } from "./results.js";

/** @typedef {import("./inputs.js").Inputs} Inputs */
/** @typedef {import("./inputs.js").SimConfig} SimConfig */
/** @typedef {import("./results.js").SimResult} SimResult */
/** @typedef {import("./livechart.js").Spec} Spec */

/**
 * @typedef {object} PinView
 * @property {() => boolean} active whether a pinned run is to be drawn
 * @property {(inputs: Inputs, result: SimResult) => void} hold the result now shown; the
 *   changes beside the summary follow
 * @property {(result: SimResult, pending: string[]) => void} preview a run's first part
 *   (its `pending` figures still to come) is shown: the changes follow it, but what a pin
 *   keeps is the last whole result
 * @property {(specs: Spec[]) => Spec[]} charts the run's charts with the pinned run's marks
 * @property {() => void} loaded the worker has the sim's module: the pinned run is asked for
 * @property {() => void} drop forget the pinned run (its inputs would stop the worker again)
 */

const DELTA = "sim-delta";

/**
 * @param {HTMLElement} root the sim's element
 * @param {SimConfig} config
 * @param {() => void} redraw draw the result shown again, with or without a pinned run
 * @returns {PinView}
 */
export function mountPin(root, config, redraw) {
  /** @type {{inputs: Inputs, result: SimResult | null} | null} */
  let pinned = null;
  const fromUrl = pinnedFromQuery(config, window.location.search);
  if (fromUrl) pinned = { inputs: fromUrl, result: null };
  let asked = false;
  /** @type {{inputs: Inputs, result: SimResult} | null} */
  let shown = null;
  /** @type {SimResult | null} the first part of a run on screen, until its whole result */
  let preview = null;

  const summary = /** @type {HTMLTableSectionElement} */ (required(root, "summary"));
  const bar = document.createElement("div");
  bar.className = "sim-pin";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "sim-pin-button";
  button.disabled = true;
  const note = document.createElement("span");
  note.className = "sim-pin-note";
  note.setAttribute("role", "status");
  bar.append(button, note);
  summary.parentElement?.before(bar); // above the summary's table

  const saveToUrl = () => {
    const next = withPinned(config, pinned && pinned.inputs, window.location.href);
    if (next !== window.location.href) window.history.replaceState(window.history.state, "", next);
  };

  // The change beside each figure: a third cell of its row, made or removed as needed.
  const writeChanges = (/** @type {Set<string>} */ pending = new Set()) => {
    const then = pinned?.result?.summary;
    for (const row of summary.rows) {
      const key = row.dataset.key ?? "";
      let cell = /** @type {HTMLTableCellElement | undefined} */ (row.cells[2]);
      if (!then || !shown) {
        cell?.remove();
        continue;
      }
      if (!cell) {
        cell = row.insertCell();
        cell.className = DELTA;
      }
      const text = pending.has(key) ? "…"
        : key in then ? change((preview ?? shown.result).summary[key], then[key]) : "not in the pinned run";
      // "−65%" on screen, "−65% vs pinned" read aloud: the note above says what it is against.
      const short = text.replace(/ vs pinned$/, "").replace(/^same as pinned$/, "same");
      if (cell.dataset.text !== text) {
        cell.dataset.text = text;
        cell.replaceChildren(short, Object.assign(document.createElement("span"), {
          className: "sim-sr", textContent: text.slice(short.length) }));
      }
    }
  };

  const label = () => {
    button.textContent = pinned ? "Unpin" : "Pin this run";
    // Its name says what it does next ("Unpin"), so it is no toggle button (aria-pressed
    // would pair "Unpin" with "pressed"); the stylesheet marks a pinned one.
    button.dataset.pinned = String(pinned !== null);
    setText(note, pinned
      ? (pinned.result ? "Pinned: faded marks on the charts, and each figure's change from it." : "Pinned: computing the pinned run…")
      : "");
  };
  label();

  button.addEventListener("click", () => {
    pinned = pinned ? null : shown && { inputs: { ...shown.inputs }, result: shown.result };
    asked = pinned !== null;
    saveToUrl();
    label();
    writeChanges();
    redraw();
  });

  /** @type {python.Listener} the pinned run's answer */
  const listener = {
    progress() {}, loaded() {}, failed() {}, fail() {}, restart() {},
    receive(answer) {
      if (!pinned || pinned.result) return;
      if (answer.ok) {
        pinned.result = answer.result;
      } else {
        pinned = null;
        saveToUrl();
        setText(note, `The pinned inputs were refused: ${answer.message}`);
      }
      if (pinned) label();
      writeChanges();
      redraw();
    },
  };

  return {
    active: () => pinned?.result != null,
    hold(inputs, result) {
      preview = null;
      shown = { inputs, result };
      button.disabled = false;
      writeChanges();
    },
    preview(result, pending) {
      preview = result;
      writeChanges(new Set(pending));
    },
    charts(specs) {
      const theirs = pinned?.result?.charts;
      return theirs ? specs.map((spec, index) => ghosted(spec, /** @type {Spec | undefined} */ (theirs[index]))) : specs;
    },
    loaded() {
      if (!pinned || pinned.result || asked) return;
      asked = true;
      python.run(listener, config.module, pinned.inputs);
    },
    drop() {
      if (!pinned || pinned.result) return;
      pinned = null;
      saveToUrl();
      label();
    },
  };
}
