// @ts-check
// A sim's live charts: Vega views that replace the prerendered SVGs and are kept from run
// to run.
//
// The live views draw on a canvas. Redrawn as SVG, a chart's changed marks cost the
// browser a restyle, a layout and a repaint of every element Vega touched: with the
// many-marked charts of the load sims, more main-thread time than Vega itself (side by side
// on this project's machine, a canvas took a third to a half less main-thread CPU per change
// for chunked_prefill, disaggregation, goodput and parallelism). A canvas takes no CSS, so
// the page's text colour is given to Vega (`themed`), and a chart is drawn again when the
// reader switches scheme. The prerendered charts stay SVG: the page's HTML carries them,
// styled by sim.css.
//
// The chart library is fetched only when the reader reaches for the controls (`reach`).
// Until the inputs differ from the prerendered ones, the prerendered SVG is the chart; when
// the reader reaches for the controls, each chart's live view is built on the result those
// SVGs show, in a hidden container beside them, so that the first change only updates the
// views and reveals them. A view is kept while its chart's shape stays (livechart.js) and
// given the new rows and values, an order of magnitude cheaper than building a new view.

import { setText } from "./results.js";
import { part } from "./parts.js";

const VENDOR_URL = new URL("../vendor/", import.meta.url);
// The body's scheme attribute, set by the light/dark toggle (partials/palette.html): the only
// one of its colour attributes that changes the text colour a chart is drawn in.
const SCHEME_ATTRIBUTE = "data-md-color-scheme";

/**
 * @typedef {object} ChartLibrary
 * @property {typeof globalThis.vega} vega
 * @property {typeof globalThis.vegaLite} vegaLite
 * @property {typeof import("./expressions.js").preparedExpressions} expr
 * @property {typeof import("./expressions.js").shown} shown the tooltip an item shows now
 * @property {typeof import("./livechart.js")} live
 */

/**
 * @typedef {object} LiveChart a chart's Vega view, drawn into `container`, with its lifted
 *   spec (livechart.js), whose shape says which later specs the view can draw and whose
 *   text says whether one differs
 * @property {VegaView} view
 * @property {string | null} shape
 * @property {import("./livechart.js").Lifted} lifted
 * @property {string} text
 * @property {HTMLElement} container
 * @property {boolean} [pending] built ahead, hidden behind the prerendered SVG
 * @property {ChartLabel} [label] its text alternative, once shown
 */

/**
 * @typedef {object} ChartLabel a chart's text alternative, as the prerendered SVG has it
 * @property {string} id the prerendered chart's id prefix (`${id}-title`, `${id}-desc`)
 * @property {string} title
 * @property {string} description
 */

/** @typedef {import("./livechart.js").Spec} Spec */

/** @type {Promise<ChartLibrary> | null} */
let library = null;

/** @returns {Promise<ChartLibrary>} the chart library, fetched once per page */
export function loadCharts() {
  // vega and vega-lite are UMD builds that set globals; expressions.js evaluates Vega
  // expressions without generated code (a CSP without 'unsafe-eval' stays possible), with
  // vega-interpreter's tables, which read the vega global: it is imported after vega.
  library ??= (async () => {
    await import(new URL("vega.min.js", VENDOR_URL).href);
    await import(new URL("vega-lite.min.js", VENDOR_URL).href);
    const [{ preparedExpressions, shown }, live] = await Promise.all([
      import(new URL("expressions.js", import.meta.url).href),
      import(new URL("livechart.js", import.meta.url).href),
    ]);
    return { vega: globalThis.vega, vegaLite: globalThis.vegaLite, expr: preparedExpressions, shown, live };
  })();
  return library;
}

/**
 * The live chart gets the text alternative the prerendered SVG has (same ids: it replaces
 * it): its canvas is an image named by a title and a description, kept in hidden elements
 * beside it, which Vega's later renders leave in place. Only text that changed is written.
 * @param {HTMLElement} container
 * @param {ChartLabel} label
 */
function describeChart(container, label) {
  const canvas = container.querySelector("canvas");
  if (!canvas) return;
  const ids = /** @type {const} */ ([["title", label.title], ["desc", label.description]]).map(([part, text]) => {
    const id = `${label.id}-${part}`;
    let element = /** @type {HTMLElement | null} */ ([...container.children].find((child) => child.id === id) ?? null);
    if (!element) {
      element = document.createElement("span");
      element.id = id;
      element.hidden = true;
      container.append(element);
    }
    setText(element, text);
    return id;
  });
  for (const [name, value] of Object.entries({ role: "img", "aria-labelledby": ids.join(" ") })) {
    if (canvas.getAttribute(name) !== value) canvas.setAttribute(name, value);
  }
}

/**
 * @param {Spec} spec as a sim returns it
 * @param {string} id
 * @returns {ChartLabel}
 */
function labelOf(spec, id) {
  // Sims give the title as an object (sims/charts.py: its text, and a width limit).
  const title = spec.title && typeof spec.title === "object" ? spec.title.text : spec.title;
  return { id, title: String(title ?? ""), description: String(spec.description ?? "") };
}

/**
 * The compiled spec in the page's colours: what sim.css gives the prerendered SVG's titles,
 * axes, legends and plot frame (the text colour; rules and ticks at 0.6 of it, the grid and
 * frame at 0.15), which a canvas can only get from Vega. Colours override the sim's own
 * config, as the style sheet does; its other settings stay.
 * @param {Spec} spec
 * @param {string} ink the chart's CSS colour
 * @returns {Spec}
 */
function themed(spec, ink) {
  const config = spec.config ?? {};
  /** @param {string} key @param {Record<string, unknown>} colours */
  const merged = (key, colours) => ({ ...(config[key] ?? {}), ...colours });
  return {
    ...spec,
    config: {
      ...config,
      title: merged("title", { color: ink, subtitleColor: ink }),
      axis: merged("axis", {
        labelColor: ink, titleColor: ink, domainColor: ink, domainOpacity: 0.6,
        tickColor: ink, tickOpacity: 0.6, gridColor: ink, gridOpacity: 0.15,
      }),
      legend: merged("legend", { labelColor: ink, titleColor: ink }),
      view: merged("view", { stroke: ink, strokeOpacity: 0.15 }),
    },
  };
}

/**
 * A new view of `lifted`, drawn into `container`. Its shape and text are taken before
 * Vega-Lite compiles it.
 * @param {ChartLibrary} lib
 * @param {import("./livechart.js").Lifted} lifted
 * @param {HTMLElement} container
 * @param {string | null} shape
 * @param {string} text
 * @returns {Promise<LiveChart>}
 */
async function newView(lib, lifted, container, shape = lib.live.shape(lifted), text = JSON.stringify(lifted)) {
  const ink = getComputedStyle(container).color;
  const compiled = lib.vegaLite.compile(themed(lib.live.sized(lifted), ink)).spec;
  const runtime = lib.vega.parse(compiled, null, { ast: true });
  const view = new lib.vega.View(runtime, { expr: lib.expr, renderer: "canvas", hover: true });
  // Vega's own tooltip (the container's title), given the value the item's tooltip has now: the
  // page's evaluator leaves it to be evaluated when shown (expressions.js, Tooltip). Set
  // before the view is drawn into its container, which would otherwise be set up twice.
  const vegaTooltip = view.tooltip();
  view.tooltip((handler, event, item, value) =>
    vegaTooltip.call(view, handler, event, item, item ? lib.shown(value, item) : value));
  view.initialize(container);
  try {
    await view.runAsync();
  } catch (error) {
    view.finalize();
    throw error;
  }
  return { view, shape, lifted, text, container };
}

/**
 * @typedef {object} ChartsView
 * @property {() => void} reach the reader is about to change an input: get the views ready
 * @property {(specs: Spec[], prerendered: boolean) => Promise<void>} show a run's charts;
 *   `prerendered`: the prerendered SVGs show these very charts (the starting inputs)
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
    const text = JSON.stringify(next);
    const kept = current && shape !== null && current.shape === shape;
    if (kept && text === current.text) return; // the same chart: nothing to draw
    const label = labelOf(spec, `${root.id}-chart${index}`);
    if (kept) {
      lib.live.update(current.view, current.lifted, next);
      await current.view.runAsync();
      if (current.pending) {
        // The prerendered SVG goes; the live one, laid out already, stays where it is.
        for (const child of [...figure.children]) if (child !== current.container) child.remove();
        current.container.className = "sim-chart-live";
      }
      describeChart(current.container, label);
      charts[index] = { ...current, lifted: next, text, pending: false, label };
      return;
    }
    current?.view.finalize();
    const container = document.createElement("div");
    container.className = "sim-chart-live";
    figure.replaceChildren(container);
    charts[index] = { ...(await newView(lib, next, container, shape, text)), label };
    describeChart(container, label);
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
        const view = await newView(lib, chart.lifted, chart.container, chart.shape, chart.text);
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
    async show(specs, prerendered) {
      if (charts.length || !prerendered) {
        await queue(async () => {
          const lib = await loadCharts();
          await Promise.all(specs.map((spec, index) => draw(lib, spec, index)));
        });
        return;
      }
      standing = specs;
      if (reached) prepare(specs);
    },
    dispose() {
      schemes.disconnect();
      for (const chart of charts) chart?.view.finalize();
      charts = [];
    },
  };
}
