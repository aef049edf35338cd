// @ts-check
// One live chart: the chart library, loaded once per page, and a Vega view made of a lifted
// spec (livechart.js) in the page's colours, with the text alternative its prerendered SVG
// had. charts.js decides when views are built, kept, shown and drawn again.
//
// The live views draw on a canvas. A canvas takes no CSS, so the page's text colour is given
// to Vega (`themed`); why a canvas rather than SVG is charts.js's.

import { setText } from "./results.js";

const VENDOR_URL = new URL("../vendor/", import.meta.url);

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
 *   spec (livechart.js), whose shape says which later specs the view can draw
 * @property {VegaView} view
 * @property {string | null} shape
 * @property {import("./livechart.js").Lifted} lifted
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
export function describeChart(container, label) {
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
export function labelOf(spec, id) {
  return { id, title: titleOf(spec), description: String(spec.description ?? "") };
}

/**
 * A chart's title as text.
 * @param {Spec} spec as a sim returns it
 */
export function titleOf(spec) {
  // Sims give the title as an object (sims/kit/charts.py: its text, and a width limit).
  const title = spec.title && typeof spec.title === "object" ? spec.title.text : spec.title;
  return String(title ?? "");
}

/**
 * The spec in the page's colours: what sim.css gives the prerendered SVG's titles,
 * axes, legends and plot frame (the text colour; rules and ticks at 0.6 of it, the grid and
 * frame at 0.15), which a canvas can only get from Vega. Colours override the sim's own
 * config, as the style sheet does; its other settings stay.
 * @param {Spec} spec
 * @param {string} ink the chart's CSS colour
 * @returns {Spec}
 */
export function themed(spec, ink) {
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
 * A new view of `lifted`, drawn into `container`. Its shape is taken before Vega-Lite
 * compiles it.
 * @param {ChartLibrary} lib
 * @param {import("./livechart.js").Lifted} lifted
 * @param {HTMLElement} container
 * @param {string | null} shape
 * @returns {Promise<LiveChart>}
 */
export async function newView(lib, lifted, container, shape = lib.live.shape(lifted)) {
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
  return { view, shape, lifted, container };
}
