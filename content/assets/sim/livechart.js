// @ts-check
// Live charts that keep their Vega view: a spec's varying literals become parameters.
//
// A sim returns a fresh Vega-Lite spec for every run. Building a new Vega view costs tens
// of milliseconds per chart; updating a kept view (new data, new signal values) costs a few.
// A view can be kept only if the new spec is the old one but for values the view can take
// as data or signals. So before a spec is compiled, `lift` replaces the literals that sims
// vary with their inputs by Vega-Lite parameters (signals in the compiled view):
//
//   title text             -> {expr: param}
//   encoding ... datum     -> {expr: param}          (numbers: reference lines)
//   text, x, y ... value   -> {expr: param}          (labels and fixed positions)
//   scale domain [a, b]    -> [{expr: param}, ...]   (fixed axis ranges)
//
// and sets aside what the view takes directly (data rows, height, width) or not at all
// (description: the page puts it on the SVG itself). `shape` is the rest: two specs with
// the same shape draw with one view, given the new parameter values. What is left in the
// shape (a category order, a number of layers) changes rarely; then a new view is built. The page's tests
// render both ways under Node and compare the SVG, for every sim (tests/browser/).

/** @typedef {Record<string, any>} Spec a Vega-Lite spec as a sim returns it (plain JSON) */
/** @typedef {Record<string, any>} Row */

/**
 * A spec with its varying literals lifted out.
 * @typedef {object} Lifted
 * @property {Spec} spec the spec with parameters in place of the literals
 * @property {Record<string, unknown>} params parameter name -> value
 * @property {Row[]} rows the data rows
 * @property {string | undefined} dataName
 * @property {unknown} height
 * @property {unknown} width
 * @property {unknown} description
 */

const PREFIX = "rp_";
const POSITIONS = new Set(["x", "y", "x2", "y2"]);

/** @param {unknown} value */
function isLiteral(value) {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/**
 * @param {Spec} original
 * @returns {Lifted}
 */
export function lift(original) {
  // A copy to rewrite, but for the rows (most of a chart's bytes, and a copy of them half
  // of lift's time): they are only read, and the view gets copies of its own (`copies`).
  // The keys keep their order, so that a shape reads as before.
  /** @type {Spec} */
  const spec = {};
  for (const [key, value] of Object.entries(original)) {
    spec[key] = key === "data" && value ? { name: value.name } : structuredClone(value);
  }
  /** @type {Record<string, unknown>} */
  const params = {};
  let count = 0;
  /** @param {unknown} value */
  const param = (value) => {
    const name = `${PREFIX}${count++}`;
    params[name] = value;
    return name;
  };
  /** @type {Row[]} */
  const rows = original.data?.values ?? [];
  const dataName = original.data?.name;
  const { height, width, description } = spec;
  delete spec.description;
  if (typeof height === "number") spec.height = 0;
  if (typeof width === "number") spec.width = 0;

  if (isLiteral(spec.title) || Array.isArray(spec.title)) {
    spec.title = { text: { expr: param(spec.title) } };
  } else if (spec.title && (isLiteral(spec.title.text) || Array.isArray(spec.title.text))) {
    spec.title = { ...spec.title, text: { expr: param(spec.title.text) } };
  }

  // A number on a position channel (a reference line) counts toward the scale's domain
  // unless the domain is given: lifted, it would not. So it is lifted only then.
  const fixedDomains = new Set();
  /** @param {Spec} view */
  const collect = (view) => {
    for (const [channel, definition] of Object.entries(view.encoding ?? {})) {
      if (Array.isArray(definition?.scale?.domain)) fixedDomains.add(channel.replace(/2$/, ""));
    }
    for (const layer of view.layer ?? []) collect(layer);
  };
  collect(spec);

  /** @param {Record<string, any>} encoding */
  const visitEncoding = (encoding) => {
    for (const channel of Object.keys(encoding).sort()) {
      const definitions = Array.isArray(encoding[channel]) ? encoding[channel] : [encoding[channel]];
      for (const definition of definitions) {
        if (!definition || typeof definition !== "object") continue;
        // Numbers only: a string datum names a legend entry, part of the chart's shape.
        const positional = POSITIONS.has(channel);
        if (typeof definition.datum === "number" && (!positional || fixedDomains.has(channel.replace(/2$/, "")))) {
          definition.datum = { expr: param(definition.datum) };
          definition.type ??= "quantitative"; // what Vega-Lite infers for a number
        }
        // A label's text, a fixed position in pixels (not "width"/"height", which
        // Vega-Lite reads as the plot's size).
        const value = definition.value;
        if ((channel === "text" && isLiteral(value)) || (positional && typeof value === "number")) {
          definition.value = { expr: param(value) };
        }
        const domain = definition.scale?.domain;
        if (Array.isArray(domain) && domain.length === 2 && domain.every((v) => typeof v === "number")) {
          definition.scale.domain = domain.map((/** @type {number} */ v) => ({ expr: param(v) }));
        }
      }
    }
  };
  /** @param {Spec} view */
  const visit = (view) => {
    if (view.encoding) visitEncoding(view.encoding);
    for (const layer of view.layer ?? []) visit(layer);
  };
  visit(spec);
  if (count) spec.params = [...(spec.params ?? []), ...Object.entries(params).map(([name, value]) => ({ name, value }))];
  return { spec, params, rows, dataName, height, width, description };
}

// What must be equal for a kept view to draw a lifted spec: everything but parameter
// values, rows, size and description. A chart whose categories keep the data's order
// (`sort: null`) has no shape: new rows can arrive in an order a kept view would not
// follow, so it is always drawn by a new view. The entries of a legend drawn from the rows
// are part of the shape too: Vega lays out a kept legend's new labels in the old labels'
// room, so a legend whose entries change is drawn by a new view.
/**
 * @param {Lifted} lifted
 * @returns {string | null}
 */
export function shape(lifted) {
  // A chart with a pinned run's marks (compare.js) is drawn afresh: its pinned rows never
  // change, and Vega does not move their marks when a kept view's ranges change.
  if (lifted.spec.usermeta?.pinned) return null;
  const spec = { ...lifted.spec };
  if (spec.params) spec.params = spec.params.map((/** @type {{name: string}} */ { name }) => name);
  const text = JSON.stringify(spec);
  if (text.includes('"sort":null')) return null;
  const legends = legendFields(lifted.spec).map((field) => [...new Set(lifted.rows.map((row) => row[field]))]);
  return legends.length ? `${text}${JSON.stringify(legends)}` : text;
}

const LEGEND_CHANNELS = new Set([
  "color", "fill", "stroke", "opacity", "fillOpacity", "strokeOpacity", "strokeWidth", "strokeDash",
  "shape", "size",
]);

// The fields whose values name a legend's entries: a legend channel's field, unless the
// legend is turned off or its entries are given (a scale domain) or are a number range.
/** @param {Spec} spec */
function legendFields(spec) {
  /** @type {Set<string>} */
  const fields = new Set();
  /** @param {Spec} view */
  const visit = (view) => {
    for (const [channel, definition] of Object.entries(view.encoding ?? {})) {
      if (!LEGEND_CHANNELS.has(channel) || typeof definition?.field !== "string") continue;
      if (definition.legend === null || definition.type === "quantitative") continue;
      if (definition.scale?.domain !== undefined) continue;
      fields.add(definition.field);
    }
    for (const layer of view.layer ?? []) visit(layer);
  };
  visit(spec);
  return [...fields].sort();
}

/**
 * Point a kept view at a new lifted spec of the same shape; the caller runs the view if it
 * returns true. False: the new spec draws what the view draws already (the same parameter
 * values, size and rows), and the view is left as it was. This is how a chart that a change
 * leaves alone is told apart: comparing the specs whole (JSON text of every row) cost a
 * many-rowed chart as much again as going through its rows here.
 * @param {VegaView} view
 * @param {Lifted} current
 * @param {Lifted} next
 * @returns {boolean} whether anything changed
 */
export function update(view, current, next) {
  let changed = false;
  for (const [name, value] of Object.entries(next.params)) {
    if (JSON.stringify(current.params[name]) !== JSON.stringify(value)) {
      view.signal(name, value);
      changed = true;
    }
  }
  if (typeof next.height === "number" && next.height !== current.height) {
    view.height(next.height);
    changed = true;
  }
  if (typeof next.width === "number" && next.width !== current.width) {
    view.width(next.width);
    changed = true;
  }
  const name = next.dataName ?? "";
  const change = rowChanges(view, name, current.rows, next.rows);
  if (change) view.change(name, change);
  if (!changed && !change) return false;
  view.resize(); // lay out afresh: new labels may need less room as well as more
  return true;
}

// The view's data tuples are copies of the rows (Vega adds fields to its tuples), so that
// a lifted spec's rows stay as the sim sent them: the previous run's rows, next to the new
// ones, say which values changed.
/** @param {Row[]} rows */
function copies(rows) {
  return rows.map((row) => ({ ...row }));
}

// One change from the view's rows (`before`, held by its tuples in the same order) to
// `after`, or null if they hold the same values. Row i of both modifies tuple i in place,
// only the values that differ, so Vega redraws the mark items it already has instead of
// removing every mark and creating new ones; extra rows are appended or removed at the end. The tuples keep the rows' order, as
// a new view's would. Rows need not have the same fields: a timeline's bars and ticks do
// not, and when a run has one bar more, every later row shifts by one. A field the new row
// lacks is set to undefined, which reads as the missing field it is in a new view's copy.
// Rows are plain objects from JSON: their own fields are all `for ... in` visits.
/**
 * @param {VegaView} view
 * @param {string} name
 * @param {Row[]} before
 * @param {Row[]} after
 */
function rowChanges(view, name, before, after) {
  const tuples = view.data(name);
  const change = view.changeset();
  if (tuples.length !== before.length) return change.remove(() => true).insert(copies(after));
  const kept = Math.min(before.length, after.length);
  let changed = before.length !== after.length;
  for (let i = 0; i < kept; i++) {
    const old = before[i];
    const row = after[i];
    for (const key in row) {
      if (old[key] !== row[key]) {
        change.modify(tuples[i], key, row[key]);
        changed = true;
      }
    }
    for (const key in old) {
      if (!Object.hasOwn(row, key)) {
        change.modify(tuples[i], key, undefined);
        changed = true;
      }
    }
  }
  if (!changed) return null;
  return change.remove(tuples.slice(kept)).insert(copies(after.slice(kept)));
}

/**
 * The compiled spec's starting size (lift set numbers aside as 0).
 * @param {Lifted} lifted
 * @returns {Spec}
 */
export function sized(lifted) {
  const spec = { ...lifted.spec };
  if (typeof lifted.height === "number") spec.height = lifted.height;
  if (typeof lifted.width === "number") spec.width = lifted.width;
  spec.data = { name: lifted.dataName, values: copies(lifted.rows) };
  return spec;
}
