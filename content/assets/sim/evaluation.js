// @ts-check
// Evaluating an expression prepared by expressions.js: the event of the evaluation in
// progress, the `this` of the functions it calls, and a mark's tooltip, evaluated when it is
// shown rather than on every update. Apart from the preparers so that each module has one
// job: expressions.js turns a syntax tree into closures once; this runs them.
//
// Adapted from vega-interpreter, Copyright (c) 2015-2023, University of Washington Interactive
// Data Lab, under the BSD 3-Clause license, whose notice in full is expressions.LICENSE.txt beside it.

import { EventFunctions } from "../vendor/vega-interpreter.js";

/** @typedef {(params?: any, datum?: any, event?: any, item?: any) => any} Run what a Node is prepared into */

// The event of the evaluation in progress, for the event functions of `this` (evaluations
// nest when a function evaluates another expression, and never interleave).
let currentEvent = /** @type {any} */ (undefined);

/** @type {(run: Run, ...args: Parameters<Run>) => any} */
export function evaluate(run, params, datum, event, item) {
  const outer = currentEvent;
  currentEvent = event;
  try {
    return run(params, datum, event, item);
  } finally {
    currentEvent = outer;
  }
}

// A mark's tooltip, evaluated when shown rather than on every update. A tooltip is an object
// built per item (its fields formatted: Vega-Lite's tooltip encoding), so evaluating it with
// the other channels cost a chart with hundreds of marks about a millisecond per update, and,
// a new object each time, marked every item changed, so that Vega measured every item's
// bounds again. No mark is drawn from its tooltip: the item holds its encoder's Tooltip
// instead (the same object on every update) and the view's tooltip handler asks `shown` for
// the value, from the item's datum and the encoder's latest parameters, as the update would
// have set it.
export class Tooltip {
  /** @param {Run} run */
  constructor(run) {
    this.run = run;
    /** @type {any} the parameters of the encoder's latest update */
    this.params = undefined;
  }
}

/**
 * The tooltip an item shows: its Tooltip evaluated now, or a value given as it is.
 * @param {unknown} value an item's tooltip, as the view's tooltip handler receives it
 * @param {any} item
 */
export function shown(value, item) {
  return value instanceof Tooltip ? evaluate(value.run, value.params, item.datum, undefined, item) : value;
}

// `this` for the functions an expression calls, one per functions object (one per view):
// the functions (scale() and data() read this.context), with the event functions routed to
// the event being evaluated, as in vega-interpreter's per-evaluation copy.
const callees = new WeakMap();

/** @param {object} fn @returns {Record<string, any>} */
export function functionsObject(fn) {
  let self = callees.get(fn);
  if (!self) {
    self = Object.create(fn);
    for (const name of EventFunctions) self[name] = (/** @type {unknown[]} */ ...args) => currentEvent.vega[name](...args);
    callees.set(fn, self);
  }
  return self;
}
