// @ts-check
// Which runs to make before the reader asks: the inputs one step away from those shown.
//
// A reader explores by steps: a slider's arrow key, the next option of a select, and back.
// Once a change's answer is on screen and Python is idle, the widget asks the worker for the
// answers one step away on the control the reader last moved (the same way first, then the
// other) and on the control that has focus, and python.js keeps them: the next step's answer
// is then on screen in the frame of the key press, without waiting for Python. A value typed
// or a jump across a slider is computed as before. Sims are pure functions of their inputs,
// so a kept answer is the answer; python.js keeps answers only for the worker that made them.
//
// No DOM here (Node's test runner checks it: tests/widget/ahead.test.mjs).

/** @typedef {import("./inputs.js").Inputs} Inputs */
/** @typedef {import("./inputs.js").InputSpec} InputSpec */

// At most this many runs ahead after each answer: each holds the worker for one run, and a
// change the reader makes meanwhile waits for the one in progress.
export const AHEAD_RUNS = 3;

/**
 * A number one step from `value`, written as a slider writes it (no binary noise: 0.3, not
 * 0.30000000000000004), or null outside the input's range.
 * @param {number} value
 * @param {import("./inputs.js").NumberInput} spec
 * @param {1 | -1} direction
 * @returns {string | null}
 */
export function stepped(value, spec, direction) {
  const decimals = (String(spec.step).split(".")[1] ?? "").length;
  const next = Number((value + direction * spec.step).toFixed(decimals));
  if (next < spec.min || next > spec.max) return null;
  return String(next);
}

/**
 * The value one step from the input's current one, in `direction`, or null if there is
 * none (the end of a range or of a list of options, a text, a value that is not a number).
 * @param {InputSpec} spec
 * @param {string} current
 * @param {1 | -1} direction
 * @returns {string | null}
 */
export function neighbour(spec, current, direction) {
  if (spec.kind === "choice") {
    const at = spec.choices.indexOf(current);
    const next = spec.choices[at + direction];
    return at < 0 || next === undefined ? null : next;
  }
  if (spec.kind === "number") {
    const value = Number(current.trim());
    return current.trim() === "" || !Number.isFinite(value) ? null : stepped(value, spec, direction);
  }
  return null;
}

/**
 * Which way the input `name` moved from `before` to `now`: 1 up (a larger number, a later
 * option), -1 down, null when it did not move or cannot be told.
 * @param {InputSpec} spec
 * @param {string} before
 * @param {string} now
 * @returns {1 | -1 | null}
 */
export function direction(spec, before, now) {
  const moved = spec.kind === "choice"
    ? spec.choices.indexOf(now) - spec.choices.indexOf(before)
    : spec.kind === "number" ? Number(now) - Number(before) : 0;
  if (!Number.isFinite(moved) || moved === 0) return null;
  return moved > 0 ? 1 : -1;
}

/**
 * The inputs to run ahead, most likely first: one step on from the control last moved (the
 * way it moved, then back past where it started), then both ways on the control in focus.
 * @param {InputSpec[]} specs every input of the sim
 * @param {Inputs} shown the inputs whose answer is on screen
 * @param {Inputs} before the inputs shown before them (the same when there is no change)
 * @param {string | null} focused the input whose control has focus
 * @returns {Inputs[]}
 */
export function ahead(specs, shown, before, focused) {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const moved = Object.keys(shown).filter((name) => String(shown[name]) !== String(before[name]));
  /** @type {[string, 1 | -1][]} */
  const steps = [];
  if (moved.length === 1) {
    const spec = byName.get(moved[0]);
    const way = spec ? direction(spec, String(before[moved[0]]), String(shown[moved[0]])) : null;
    if (way) steps.push([moved[0], way], [moved[0], way === 1 ? -1 : 1]);
  }
  if (focused) steps.push([focused, 1], [focused, -1]);
  /** @type {Inputs[]} */
  const runs = [];
  const seen = new Set();
  for (const [name, way] of steps) {
    const spec = byName.get(name);
    if (!spec || name in shown === false) continue;
    const value = neighbour(spec, String(shown[name]), way);
    if (value === null || value === String(before[name]) && moved.includes(name)) continue;
    const key = `${name}=${value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    runs.push({ ...shown, [name]: value });
    if (runs.length === AHEAD_RUNS) break;
  }
  return runs;
}
