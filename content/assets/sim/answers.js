// @ts-check
// Answers kept on the page (ahead.js says why python.js keeps them and runs ahead): each
// run's answer, by module and inputs, as the worker sent it, parsed afresh for each reader
// of it so that no renderer can change a kept one. A sim is a pure function of its inputs,
// so a kept answer is the answer, for as long as the worker that made it runs the same files
// (python.js forgets them all when it replaces the worker).
//
// No DOM here; the performance marks are what the bench and the tests count.

/** @typedef {import("./inputs.js").Inputs} Inputs */

const KEPT_ANSWERS = 24;
// Runs ahead only for a sim whose last run the worker made took at most this long: a run
// ahead holds the worker while the reader may change an input, and the planner's searches
// take seconds.
export const AHEAD_UNDER_MS = 250;
// Performance marks, each cleared as soon as it is made (an observer has it): a run answered
// from the page, and a run ahead answered by the worker.
export const KEPT = "ridgepoint:answer:kept";
export const AHEAD_DONE = "ridgepoint:answer:ahead";

/**
 * @param {typeof KEPT | typeof AHEAD_DONE} name
 * @param {string} module
 */
export function mark(name, module) {
  performance.mark(name, { detail: { module } });
  performance.clearMarks(name);
}

// The bench measures every change computed, and tests that need every run in the worker
// say so, by setting window.ridgepointAhead = false: no runs ahead, no answers kept.
export function aheadOn() {
  return globalThis.window?.ridgepointAhead !== false;
}

/**
 * A run's key: its module and its inputs as text, in name order (two sets of inputs that
 * read the same are one run, as inputs.js compares them).
 * @param {string} module
 * @param {Inputs} inputs
 */
export function runKey(module, inputs) {
  const values = Object.keys(inputs).sort().map((name) => [name, String(inputs[name])]);
  return `${module}\n${JSON.stringify(values)}`;
}

/** The latest KEPT_ANSWERS answers (payloads as the worker sent them), by run key. */
export class KeptAnswers {
  /** @type {Map<string, string>} oldest first */
  payloads = new Map();

  /** @param {string} key @returns {string | undefined} the payload, now the newest */
  take(key) {
    const payload = this.payloads.get(key);
    if (payload !== undefined) this.keep(key, payload);
    return payload;
  }

  /** @param {string} key */
  has(key) {
    return this.payloads.has(key);
  }

  /** @param {string} key @param {string} payload */
  keep(key, payload) {
    this.payloads.delete(key);
    this.payloads.set(key, payload);
    if (this.payloads.size > KEPT_ANSWERS) {
      this.payloads.delete(/** @type {string} */ (this.payloads.keys().next().value));
    }
  }

  clear() {
    this.payloads.clear();
  }
}
