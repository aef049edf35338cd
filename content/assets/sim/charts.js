// @ts-check
// A sim's live charts: Vega views that replace the prerendered SVGs and are kept from run
// to run.
//
// The live views draw on a canvas. Redrawn as SVG, a chart's changed marks cost the
// browser a restyle, a layout and a repaint of every element Vega touched: with the
// many-marked charts of the load sims, more main-thread time than Vega itself (side by side
// on this project's machine, a canvas took a third to a half less main-thread CPU per change
// for chunked_prefill, disaggregation, goodput and parallelism). A canvas takes no CSS, so
// the page's text colour is given to Vega (chartview.js), and a chart is drawn again when the
// reader switches scheme. The prerendered charts stay SVG: the page's HTML carries them,
// styled by sim.css.
//
// The chart library is fetched only when the reader reaches for the controls (`reach`).
// Until the inputs differ from the prerendered ones, the prerendered SVG is the chart; when
// the reader reaches for the controls, each chart's live view is built on the result those
// SVGs show, in a hidden container beside them, so that the first change only updates the
// views and reveals them. A view is kept while its chart's shape stays (livechart.js) and
// given the new rows and values, an order of magnitude cheaper than building a new view.

import { part } from "./parts.js";
import { describeChart, labelOf, loadCharts, newView } from "./chartview.js";
import { ALL, FIRST, afterPaint, drawn } from "./drawn.js";

// The body's scheme attribute, set by the light/dark toggle (partials/palette.html): the only
// one of its colour attributes that changes the text colour a chart is drawn in.
const SCHEME_ATTRIBUTE = "data-md-color-scheme";

/** @typedef {import("./chartview.js").LiveChart} LiveChart */
/** @typedef {import("./chartview.js").ChartLibrary} ChartLibrary */
/** @typedef {import("./livechart.js").Spec} Spec */

/**
 * @typedef {object} ChartsView
 * @property {() => void} reach the reader is about to change an input: get the views ready
 * @property {(specs: Spec[], prerendered: boolean, firstShown?: boolean) => Promise<void>} show
 *   a run's charts; `prerendered`: the prerendered SVGs show these very charts (the starting
 *   inputs); `firstShown`: `showFirst` drew this run's first charts already
 * @property {(specs: Spec[]) => Promise<void>} showFirst the first charts of a run answered
 *   in two parts (sims/kit/phased.py), the summary just written; the others are marked
 *   waiting (data-waiting, aria-busy) until `show` draws the whole run
 * @property {() => void} dispose
 */

/**
 * @param {HTMLElement} root the sim's element
 * @returns {ChartsView}
 */
export function mountCharts(root) {
  /** @type {(LiveChart | undefined)[]} */
  let charts = [];
  let work = Promise.resolve(); // the chart operation in progress
  /** @type {Spec[] | null} */
  let standing = null; // the live charts the prerendered ones stand for
  let reached = false;

  // Chart views are built and updated one operation at a time: a change that arrives while
  // the charts are being prepared waits for them, then updates the views prepared.
  /** @param {() => Promise<void>} operation */
  const queue = (operation) => {
    const done = work.then(operation);
    work = done.catch(() => {});
    return done;
  };

  /** @param {Spec[]} specs */
  const prepare = (specs) => queue(async () => {
    if (charts.length) return; // live already
    try {
      const lib = await loadCharts();
      for (const [index, spec] of specs.entries()) {
        const figure = part(root, "chart", index);
        if (!figure) continue;
        const container = document.createElement("div");
        container.className = "sim-chart-pending";
        figure.append(container);
        try {
          charts[index] = { ...(await newView(lib, lib.live.lift(spec), container)), pending: true };
        } catch (error) {
          container.remove();
          throw error;
        }
      }
    } catch {
      // Not ready ahead, then: the first change builds the charts and reports any failure.
      for (const chart of charts) {
        chart?.view.finalize();
        chart?.container.remove();
      }
      charts = [];
    }
  });

  /**
   * @param {ChartLibrary} lib
   * @param {Spec} spec
   * @param {number} index
   */
  const draw = async (lib, spec, index) => {
    const figure = part(root, "chart", index);
    if (!figure) return;
    // What the sim varies with its inputs (rows, reference values, titles) is set apart
    // (livechart.js): when the rest, the shape, is unchanged the view is kept.
    const next = lib.live.lift(spec);
    const shape = lib.live.shape(next);
    const current = charts[index];
    const label = labelOf(spec, `${root.id}-chart${index}`);
    if (current && shape !== null && current.shape === shape) {
      // A chart the change left alone (the same values, rows and text alternative) is not
      // drawn again; `update` tells, from the values it would change.
      const changed = lib.live.update(current.view, current.lifted, next);
      if (!changed && next.description === current.lifted.description) return;
      if (changed) await current.view.runAsync();
      if (current.pending) {
        // The prerendered SVG goes; the live one, laid out already, stays where it is.
        for (const child of [...figure.children]) if (child !== current.container) child.remove();
        current.container.className = "sim-chart-live";
      }
      describeChart(current.container, label);
      charts[index] = { ...current, lifted: next, pending: false, label };
      return;
    }
    current?.view.finalize();
    const container = document.createElement("div");
    container.className = "sim-chart-live";
    figure.replaceChildren(container);
    charts[index] = { ...(await newView(lib, next, container, shape)), label };
    describeChart(container, label);
  };

  // Marks the charts from `from` on as waiting for the rest of the run (none, by default),
  // and unmarks those before it.
  const wait = (from = Number.POSITIVE_INFINITY) => {
    for (let index = 0, figure = part(root, "chart", 0); figure; figure = part(root, "chart", ++index)) {
      const waiting = index >= from;
      if (waiting === figure.hasAttribute("data-waiting")) continue;
      figure.toggleAttribute("data-waiting", waiting);
      figure.toggleAttribute("aria-busy", waiting);
    }
  };

  // The reader switched scheme: each view is built again, in the same container, with the
  // new text colour (a canvas keeps the colours it was drawn in). A new pixel ratio (a zoom,
  // another monitor) needs nothing here: Vega redraws its canvas for it. A view that fails
  // to build leaves its chart as it was drawn until the next change builds it afresh; the
  // other charts are still drawn, and the first failure is thrown once they are.
  const redraw = () => queue(async () => {
    if (!charts.length) return;
    const lib = await loadCharts();
    /** @type {unknown[]} */
    const failures = [];
    for (const [index, chart] of charts.entries()) {
      if (!chart) continue;
      chart.view.finalize();
      try {
        const view = await newView(lib, chart.lifted, chart.container, chart.shape);
        charts[index] = { ...view, pending: chart.pending, label: chart.label };
        if (chart.label) describeChart(chart.container, chart.label);
      } catch (error) {
        charts[index] = undefined;
        failures.push(error);
      }
    }
    if (failures.length) throw failures[0];
  });
  // A view that fails to build again is an error of the page's code, not of the reader's
  // inputs: reported as an uncaught error would be, not left as an unhandled rejection.
  const schemes = new MutationObserver(() => { redraw().catch(reportError); });
  schemes.observe(document.body, { attributes: true, attributeFilter: [SCHEME_ATTRIBUTE] });

  return {
    // The first change would otherwise wait for the chart library and then build every
    // chart's view, a few hundred milliseconds before anything moves.
    reach() {
      if (reached) return;
      reached = true;
      loadCharts().catch(() => {}); // a failure is reported by the first change that needs it
      if (standing) prepare(standing);
    },
    // The first chart with the summary (written just before), the others after that frame
    // is painted (drawn.js). After `showFirst`, that frame is on screen already: the first
    // charts are drawn again only if they changed (they do not: the same run's).
    async show(specs, prerendered, firstShown = false) {
      if (charts.length || !prerendered) {
        await queue(async () => {
          const lib = await loadCharts();
          if (specs.length) await draw(lib, specs[0], 0);
          if (!firstShown) drawn(root, FIRST);
          if (specs.length > 1) {
            if (!firstShown) await afterPaint();
            await Promise.all(specs.slice(1).map((spec, index) => draw(lib, spec, index + 1)));
          }
          wait();
          drawn(root, ALL);
        });
        return;
      }
      standing = specs;
      if (reached) prepare(specs);
      if (!firstShown) drawn(root, FIRST);
      drawn(root, ALL);
    },
    // The charts of a run's first part, as `show` draws a whole run's: the first with the
    // summary (written just before), its other charts once that frame is painted. Until
    // drawn, a chart is marked waiting, so that none shows another run's figures as this
    // one's.
    showFirst(specs) {
      return queue(async () => {
        const lib = await loadCharts();
        if (specs.length) await draw(lib, specs[0], 0);
        wait(Math.min(1, specs.length));
        drawn(root, FIRST);
        if (specs.length > 1) {
          await afterPaint();
          await Promise.all(specs.slice(1).map((spec, index) => draw(lib, spec, index + 1)));
          wait(specs.length);
        }
      });
    },
    dispose() {
      schemes.disconnect();
      for (const chart of charts) chart?.view.finalize();
      charts = [];
    },
  };
}
