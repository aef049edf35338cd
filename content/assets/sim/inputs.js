// @ts-check
// A sim's inputs as the page keeps them: its config, compared as text, carried in the URL.
//
// No DOM here (Node's test runner checks it: tests/widget/inputs.test.mjs). Values are kept
// as the reader typed them: a text box holds "8" or "8.0" or "abc", and the sim, not the
// page, says whether that is a valid input. Two sets of inputs are the same when every
// value reads the same as text, so the starting 8 and a typed "8" are one scenario.

/**
 * @typedef {object} NumberInput
 * @property {"number"} kind
 * @property {string} name
 * @property {string} label
 * @property {number} default
 * @property {number} min
 * @property {number} max
 * @property {number} step
 * @property {string} unit
 * @property {string} help
 * @property {boolean} integer
 */

/**
 * @typedef {object} ChoiceInput
 * @property {"choice"} kind
 * @property {string} name
 * @property {string} label
 * @property {string} default
 * @property {string[]} choices
 * @property {string} help
 */

/**
 * A short string (sims/kit/contract.py's Text), carried in the URL like any input. With
 * `file` (the file types a picker offers), the page reads a file the reader picks into it
 * through the sim's `read_file`, in the worker. With `lines` over 1 it is a text area for a
 * pasted file (a model's config.json) that the input's own reader checks and makes compact
 * (`reads`), shown only while a choice has one value (`shown_when`, "model=custom").
 * @typedef {object} TextInput
 * @property {"text"} kind
 * @property {string} name
 * @property {string} label
 * @property {string} default
 * @property {number} max_length
 * @property {string} help
 * @property {string} file
 * @property {number} [lines]
 * @property {string} [shown_when] "<choice>=<value>", or "" (always shown)
 * @property {boolean} [reads] a paste is read by the sim's Python (runner.read) first
 */

/** @typedef {NumberInput | ChoiceInput | TextInput} InputSpec */

/** @typedef {Record<string, string | number | boolean>} Inputs */

/**
 * What the build writes into each sim's config part (ridgepoint's widget HTML module).
 * @typedef {object} SimConfig
 * @property {string} module the sim's module in sims/
 * @property {string} key the sim's name on its page: the module, or "<module>-<n>"
 * @property {string[]} files the sims files the worker fetches to import it
 * @property {InputSpec[]} inputs every input the sim declares
 * @property {string[]} show the inputs that have controls
 * @property {string[]} first the controls shown first (the others are under "More inputs");
 *   empty when none are set apart
 * @property {Inputs} start the inputs the prerendered results were computed for
 * @property {Record<string, string>} metrics summary key -> label
 */

/**
 * Whether every input of `a` reads the same in `b`.
 * @param {Inputs} a
 * @param {Inputs} b
 */
export function sameInputs(a, b) {
  return Object.keys(a).every((name) => String(a[name]) === String(b[name]));
}

/**
 * A URL parameter is "<key>.<input>", so several sims on a page keep separate inputs.
 * @param {string} key
 * @param {string} name
 */
export function param(key, name) {
  return `${key}.${name}`;
}

/**
 * The starting inputs, with those the URL names for this sim's controls put in.
 * @param {SimConfig} config
 * @param {string} search the page's location.search
 * @returns {Inputs}
 */
export function fromQuery(config, search) {
  const query = new URLSearchParams(search);
  /** @type {Inputs} */
  const values = { ...config.start };
  for (const name of config.show) {
    const value = query.get(param(config.key, name));
    if (value !== null) values[name] = value;
  }
  return values;
}

/**
 * The page's URL carrying these inputs: only those that differ from the starting ones, so
 * an untouched sim leaves the address as it was.
 * @param {SimConfig} config
 * @param {Inputs} values
 * @param {string} href the page's current address
 * @returns {string}
 */
export function withInputs(config, values, href) {
  const url = new URL(href);
  for (const name of config.show) {
    if (String(values[name]) === String(config.start[name])) {
      url.searchParams.delete(param(config.key, name));
    } else {
      url.searchParams.set(param(config.key, name), String(values[name]));
    }
  }
  return url.href;
}

/**
 * Whether a control is shown at these values: a text shown only while a choice has one
 * value (`shown_when`) is hidden otherwise.
 * @param {InputSpec} spec
 * @param {Inputs} values
 */
export function isShown(spec, values) {
  if (spec.kind !== "text" || !spec.shown_when) return true;
  const [name, wanted] = spec.shown_when.split("=");
  return String(values[name]) === wanted;
}

/**
 * Where a slider can show a typed value: the number's text when it is one within the
 * slider's range, or null (the slider then stays where it was).
 * @param {string} raw
 * @param {NumberInput} spec
 * @returns {string | null}
 */
export function sliderValue(raw, spec) {
  const text = raw.trim();
  const number = Number(text);
  return text !== "" && Number.isFinite(number) && number >= spec.min && number <= spec.max ? text : null;
}
