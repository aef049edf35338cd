// @ts-check
// A run compared with a pinned one, without a DOM (Node's test runner checks it:
// tests/widget/compare.test.mjs): the pinned inputs in the URL, the change of each summary
// figure in words, and each chart with the pinned run's marks drawn faded beside its own.
//
// URL: "<key>.pin=1" says the sim has a pinned run, and "<key>.pin.<input>=<value>" gives
// each pinned input that differs from the starting ones (as "<key>.<input>" does for the
// inputs shown), so a shared link recomputes the pinned run and shows the comparison.

import { display } from "./format.js";
import { param } from "./inputs.js";

/** @typedef {import("./inputs.js").SimConfig} SimConfig */
/** @typedef {import("./inputs.js").Inputs} Inputs */
/** @typedef {Record<string, any>} Spec */

const MINUS = "\u2212";
// A ghost's look: lines, points and rules faded under the run's own; filled marks (bars,
// areas, slots) as a dashed outline, which shows where the pinned run's end whichever is taller.
const FADED = 0.35;
const FILLED = new Set(["bar", "area", "rect", "arc"]);

/**
 * The pinned inputs the URL names for this sim, or null when it pins nothing.
 * @param {SimConfig} config
 * @param {string} search the page's location.search
 * @returns {Inputs | null}
 */
export function pinnedFromQuery(config, search) {
  const query = new URLSearchParams(search);
  if (query.get(param(config.key, "pin")) === null) return null;
  /** @type {Inputs} */
  const values = { ...config.start };
  for (const name of config.show) {
    const value = query.get(param(config.key, `pin.${name}`));
    if (value !== null) values[name] = value;
  }
  return values;
}

/**
 * The page's URL carrying the pinned inputs, or none when `pinned` is null.
 * @param {SimConfig} config
 * @param {Inputs | null} pinned
 * @param {string} href
 * @returns {string}
 */
export function withPinned(config, pinned, href) {
  const url = new URL(href);
  if (pinned) url.searchParams.set(param(config.key, "pin"), "1");
  else url.searchParams.delete(param(config.key, "pin"));
  for (const name of config.show) {
    const key = param(config.key, `pin.${name}`);
    if (pinned && String(pinned[name]) !== String(config.start[name])) url.searchParams.set(key, String(pinned[name]));
    else url.searchParams.delete(key);
  }
  return url.href;
}

/**
 * How a summary figure changed from the pinned run, in words: "+12% vs pinned", "−3 vs
 * pinned" (from zero), "same as pinned", or the pinned value when it is not a number.
 * @param {unknown} now
 * @param {unknown} then
 * @returns {string}
 */
export function change(now, then) {
  if (typeof now !== "number" || typeof then !== "number" || !Number.isFinite(now) || !Number.isFinite(then)) {
    return String(now) === String(then) ? "same as pinned" : `pinned: ${display(then)}`;
  }
  if (now === then) return "same as pinned";
  const sign = now > then ? "+" : MINUS;
  if (then === 0) return `${sign}${display(Math.abs(now - then))} vs pinned`;
  const percent = Number((Math.abs(now - then) / Math.abs(then) * 100).toPrecision(2));
  return `${sign}${percent}% vs pinned`;
}

/**
 * A layer of the pinned run's chart, faded: no tooltip, no selection, its own rows, on the
 * run's own scales.
 * @param {Spec} layer
 * @param {unknown[]} rows
 * @returns {Spec | null} null for labels (text), which would only clutter
 */
function ghost(layer, rows) {
  if (Array.isArray(layer.layer)) {
    const inner = layer.layer.map((/** @type {Spec} */ child) => ghost(child, rows)).filter((child) => child !== null);
    return inner.length ? { ...layer, layer: inner } : null;
  }
  const mark = typeof layer.mark === "string" ? { type: layer.mark } : { ...layer.mark };
  if (!mark.type || mark.type === "text") return null;
  const filled = FILLED.has(mark.type);
  const faded = filled
    ? { ...mark, filled: false, strokeDash: [4, 2], strokeWidth: 1.5, opacity: 0.9, fillOpacity: 0 }
    : { ...mark, opacity: FADED, ...(mark.point ? { point: { opacity: FADED } } : {}) };
  /** @type {Spec} */
  const encoding = {};
  for (const [channel, definition] of Object.entries(layer.encoding ?? {})) {
    if (["tooltip", "opacity", "fillOpacity", "strokeOpacity", "href"].includes(channel)) continue;
    // The run's own range, not the pinned run's: without a domain of its own the pinned
    // layer takes the run's (an explicit domain wins over the data's), so the axes stay put
    // (two explicit domains would be joined, with a warning); a mark outside is clipped.
    encoding[channel] = definition?.scale?.domain
      ? { ...definition, scale: Object.fromEntries(Object.entries(definition.scale).filter(([key]) => key !== "domain")) }
      : definition;
  }
  const { params, name, ...rest } = layer;
  return {
    ...rest,
    data: layer.data ?? { values: rows },
    mark: { ...faded, clip: true, tooltip: false },
    encoding,
  };
}

/**
 * The layers of a chart: its own, or its one view as a layer.
 * @param {Spec} spec
 * @returns {{top: Spec, layers: Spec[]}}
 */
function layersOf(spec) {
  if (Array.isArray(spec.layer)) {
    const { layer, ...top } = spec;
    return { top, layers: layer };
  }
  const { mark, encoding, transform, params, ...top } = spec;
  /** @type {Spec} */
  const view = { mark };
  if (encoding) view.encoding = encoding;
  if (transform) view.transform = transform;
  if (params) view.params = params;
  return { top, layers: [view] };
}

/**
 * `spec` with the pinned run's marks drawn beside its own: each layer becomes a layer of
 * two, its own and the pinned chart's same layer faded, over the pinned rows, so that the
 * pair shares its scales whatever the chart resolves between its layers (a second y axis).
 * @param {Spec} spec the run's chart, as the sim returns it
 * @param {Spec | undefined} pinned the pinned run's chart at the same place
 * @returns {Spec}
 */
export function ghosted(spec, pinned) {
  if (!pinned) return spec;
  const rows = pinned.data?.values ?? [];
  const own = layersOf(spec);
  const theirs = layersOf(pinned).layers;
  const layer = own.layers.map((view, index) => {
    const shadow = theirs[index] ? ghost(theirs[index], rows) : null;
    return shadow ? { layer: [view, shadow] } : view;
  });
  // Drawn by a new view every run (livechart.js, shape): a kept view, given the run's new rows
  // and ranges, leaves the pinned marks where the old ranges put them.
  return { ...own.top, usermeta: { ...(own.top.usermeta ?? {}), pinned: true }, layer };
}
