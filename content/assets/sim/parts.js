// @ts-check
// The parts of a sim's markup that the widget's script binds to, all in one table.
//
// The build writes the widget (ridgepoint's widget HTML module) and marks every element the
// script looks for with data-sim-part="<name>"; the script finds them only through `part`
// and `required` below, never by class or tag: classes are left to the stylesheet. A
// test reads this table under Node and checks that every part exists where it should in
// the HTML the build writes (tests/pipeline/test_widget_parts.py): a part renamed on one
// side only fails there, not in a reader's browser.
//
// `scope`: a part of the whole sim, or of one control. `key`: the attribute that tells
// apart the parts of one name (data-input="<input>", data-chart="<index>", ...). `kind`: the
// controls that have the part (a number has a slider and a text box, a choice a select, a
// text a text field, and a text that a file fills, "file", a file picker too; a text its
// own reader checks on a paste, "reads", a line saying what it read).

/**
 * @typedef {object} Part
 * @property {"sim" | "control"} scope
 * @property {string} [key] the data-* attribute (without "data-") that names each of them
 * @property {"number" | "choice" | "text" | "file" | "reads"} [kind] only controls of this kind of input have it
 * @property {boolean} [optional] only some widgets have it (the build writes it when needed)
 * @property {string} job what the script does with it
 */

/** The root of each sim: the page's contract (data-sim="<module>", with data-state). */
export const SIM = "[data-sim]";

/** @type {Readonly<Record<string, Part>>} */
export const PARTS = Object.freeze({
  config: { scope: "sim", job: "JSON: module, inputs, starting values, metric labels, files" },
  controls: { scope: "sim", job: "the form: reaching into it prepares the charts and the worker" },
  more: { scope: "sim", optional: true, job: "\"More inputs\": opened when the URL sets one of its inputs" },
  control: { scope: "sim", key: "input", job: "one input's box, one per input shown" },
  slider: { scope: "control", kind: "number", job: "follows the value; moving it changes the input" },
  number: { scope: "control", kind: "number", job: "the exact value; typing changes the input" },
  choice: { scope: "control", kind: "choice", job: "the select; choosing changes the input" },
  text: { scope: "control", kind: "text", job: "the text; typing changes the input" },
  file: { scope: "control", kind: "file", job: "picks a file, read by the sim into the text" },
  note: { scope: "control", kind: "reads", job: "what the sim read from a paste (\"Your model: ...\")" },
  error: { scope: "control", job: "why the value typed was refused" },
  status: { scope: "sim", job: "what the live version is doing, in words" },
  progress: { scope: "sim", job: "the start-up's progress bar" },
  output: { scope: "sim", job: "the results: data-stale and data-fading say whether they are current" },
  summary: { scope: "sim", job: "the summary table's body, one row per metric" },
  apply: { scope: "sim", job: "a button that sets the inputs a result suggests (its `apply`)" },
  table: { scope: "sim", key: "table", job: "a table's body, one per table of the result" },
  chart: { scope: "sim", key: "chart", job: "a chart's figure, one per chart of the result" },
});

/**
 * The selector of a part (with its key's value, for a part that has a key).
 * @param {string} name
 * @param {string | number} [key]
 */
export function selector(name, key) {
  const spec = PARTS[name];
  if (!spec) throw new Error(`no part named ${name} (see parts.js)`);
  const keyed = spec.key && key !== undefined ? `[data-${spec.key}="${key}"]` : "";
  return `[data-sim-part="${name}"]${keyed}`;
}

/**
 * One part inside `root`, or null when the page has none (a table the build did not write).
 * @param {ParentNode} root
 * @param {string} name
 * @param {string | number} [key]
 * @returns {HTMLElement | null}
 */
export function part(root, name, key) {
  return root.querySelector(selector(name, key));
}

/**
 * One part inside `root` that must be there (the build always writes it).
 * @param {ParentNode} root
 * @param {string} name
 * @param {string | number} [key]
 * @returns {HTMLElement}
 */
export function required(root, name, key) {
  const found = part(root, name, key);
  if (!found) throw new Error(`the page's sim has no ${selector(name, key)}`);
  return found;
}

/**
 * The part named `name` that holds `element` (the element itself or an ancestor), or null:
 * which control has focus, say.
 * @param {Element | null} element
 * @param {string} name
 * @returns {HTMLElement | null}
 */
export function enclosing(element, name) {
  const found = element?.closest(selector(name));
  return found instanceof HTMLElement ? found : null;
}
