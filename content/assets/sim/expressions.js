// @ts-check
// Vega expressions evaluated by closures prepared once per expression: the `expr` option the
// page's Vega views are given (charts.js), with vega-interpreter's semantics and tables.
//
// The page's Content Security Policy has no 'unsafe-eval', so Vega cannot compile its
// expressions into functions; the views are parsed with {ast: true} and need an evaluator.
// vega-interpreter walks an expression's syntax tree on every evaluation, and each
// evaluation allocates its visitor, a copy of the functions object and six closures: for
// every channel of every mark item on every update, 30-45% of a chart update. Here each
// tree is turned once, when Vega asks for the expression (once per view), into a tree of
// small closures taking (params, datum, event, item); an evaluation only calls them.
//
// What each node does is vega-interpreter 2.3.2's (build/vega-interpreter.js, Visitors,
// interpret and expression), node for node, and its tables (functions, operators,
// constants, disallowed methods, adjustSpatial) are imported from the staged copy of it
// (scripts/ridgepoint/browser/runtime.py exports them), so a pinned upgrade brings its changes.
// What is decided once instead of per evaluation: a node's kind, a name's meaning (a
// member's or key's name, datum/event/item, a constant or a parameter), an operator, and
// whether a regular expression literal must be fresh. Two differences that no Vega function
// can see: a member is read once where vega-interpreter reads it twice (plain data; no
// getters), and a function's `this` (an object inheriting the view's functions, with the
// event functions routed to the event being evaluated) is made once per view, not per
// evaluation. A node that vega-interpreter cannot evaluate throws when evaluated, as there.
// One difference that only a tooltip handler sees: a mark's tooltip is evaluated when it is
// shown, not with the item's other channels (`Tooltip`, `shown`).
//
// Adapted from vega-interpreter, Copyright (c) 2015-2023, University of Washington Interactive
// Data Lab, under the BSD 3-Clause license, whose notice in full is expressions.LICENSE.txt beside it.

import {
  Constants, DisallowedMethods, DisallowedObjectProperties, EventFunctions, Functions, Ops, Unary, adjustSpatial,
} from "../vendor/vega-interpreter.js";

/** @typedef {{type: string, arguments: Node[], elements: Node[], properties: Node[], [field: string]: any}} Node */
/** @typedef {(params?: any, datum?: any, event?: any, item?: any) => any} Run what a Node is prepared into */

// The event of the evaluation in progress, for the event functions of `this` (evaluations
// nest when a function evaluates another expression, and never interleave).
let currentEvent = /** @type {any} */ (undefined);

/** @type {(run: Run, ...args: Parameters<Run>) => any} */
function evaluate(run, params, datum, event, item) {
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
class Tooltip {
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
function functionsObject(fn) {
  let self = callees.get(fn);
  if (!self) {
    self = Object.create(fn);
    for (const name of EventFunctions) self[name] = (/** @type {unknown[]} */ ...args) => currentEvent.vega[name](...args);
    callees.set(fn, self);
  }
  return self;
}

// What vega-interpreter logs when it refuses a member, an object key or an object value.
/** @param {string} kind @param {unknown} name */
function refuse(kind, name) {
  console.error(`Prevented interpretation of ${kind} "${name}" which could lead to insecure code execution`);
}

/** @param {string} why @returns {Run} */
function unevaluable(why) {
  return () => {
    throw new TypeError(`Cannot evaluate this Vega expression: ${why}`);
  };
}

// The value a node always has, as [value], or null: literals that need no fresh copy, and
// names (under a non-computed member or an object key, where vega-interpreter's memberDepth
// is above 0, an identifier is its name).
/** @param {Node | undefined} node @param {boolean} named @returns {[any] | null} */
function constant(node, named) {
  if (node?.type === "Identifier" && named) return [node.name];
  if (node?.type === "Literal" && !freshRegExp(node)) return [node.value];
  return null;
}

// Global and sticky regular expressions carry lastIndex from one use to the next, so
// vega-interpreter (like generated code) makes a new one per evaluation.
/** @param {Node} node */
function freshRegExp(node) {
  return Boolean(node.regex && node.value && (node.value.global || node.value.sticky));
}

// Each preparer: (node, self, named) => (params, datum, event, item) => value. `self` is the
// `this` of called functions; `named` is true where identifiers are names.
/** @type {Record<string, (node: Node, self: Record<string, any>, named: boolean) => Run>} */
const Preparers = {
  Literal(node) {
    if (freshRegExp(node)) {
      const { pattern, flags } = node.regex;
      return () => new RegExp(pattern, flags);
    }
    const value = node.value;
    return () => value;
  },

  Identifier(node, self, named) {
    const id = node.name;
    if (named) return () => id;
    if (id === "datum") return (params, datum) => datum;
    if (id === "event") return (params, datum, event) => event;
    if (id === "item") return (params, datum, event, item) => item;
    const value = Constants[id];
    if (value) return () => value;
    const key = "$" + id;
    return (params) => params[key];
  },

  MemberExpression(node, self, named) {
    const propertyNamed = named || !node.computed;
    const known = constant(node.property, propertyNamed);
    if (known && node.object?.type === "Identifier" && node.object.name === "datum" && !named) {
      // datum.field and datum["field"], the commonest of all, in one closure
      const [key] = known;
      return (params, datum) => {
        const value = datum[key];
        if (DisallowedMethods.has(value)) return refuse("member", key);
        return value;
      };
    }
    const object = prepare(node.object, self, named);
    if (known) {
      const [key] = known;
      return (params, datum, event, item) => {
        const value = object(params, datum, event, item)[key];
        if (DisallowedMethods.has(value)) return refuse("member", key);
        return value;
      };
    }
    const property = prepare(node.property, self, propertyNamed);
    return (params, datum, event, item) => {
      const target = object(params, datum, event, item);
      const key = property(params, datum, event, item);
      const value = target[key];
      if (DisallowedMethods.has(value)) return refuse("member", key);
      return value;
    };
  },

  CallExpression(node, self, named) {
    let name = node.callee?.name;
    if (typeof name !== "string") return unevaluable("a call of something other than a name");
    // Internal functions of Vega's encoders (_scale, ...) are the standard ones.
    if (name.startsWith("_")) name = name.slice(1);
    const nodes = node.arguments;
    if (name === "if") {
      // Only the branch taken is evaluated.
      const [test, then, otherwise] = [0, 1, 2].map((i) => prepare(nodes[i], self, named));
      return (params, datum, event, item) => (test(params, datum, event, item)
        ? then(params, datum, event, item)
        : otherwise(params, datum, event, item));
    }
    const args = nodes.map((argument) => prepare(argument, self, named));
    // The function is looked up on every call, before its arguments are evaluated, as there:
    // functions can be added to Vega after a view is made. The event functions (view(),
    // x(), ...) are self's own, which call the event's.
    if (args.length === 1) {
      const [a] = args;
      return (params, datum, event, item) => (self[name] || Functions[name])
        .call(self, a(params, datum, event, item));
    }
    if (args.length === 2) {
      const [a, b] = args;
      return (params, datum, event, item) => (self[name] || Functions[name])
        .call(self, a(params, datum, event, item), b(params, datum, event, item));
    }
    return (params, datum, event, item) => (self[name] || Functions[name])
      .apply(self, args.map((arg) => arg(params, datum, event, item)));
  },

  ArrayExpression(node, self, named) {
    const elements = node.elements.map((element) => prepare(element, self, named));
    return (params, datum, event, item) => elements.map((element) => element(params, datum, event, item));
  },

  BinaryExpression(node, self, named) {
    const op = Ops[node.operator];
    if (typeof op !== "function") return unevaluable(`the operator ${node.operator}`);
    const left = prepare(node.left, self, named);
    const right = prepare(node.right, self, named);
    return (params, datum, event, item) => op(left(params, datum, event, item), right(params, datum, event, item));
  },

  UnaryExpression(node, self, named) {
    const op = Unary[node.operator];
    if (typeof op !== "function") return unevaluable(`the operator ${node.operator}`);
    const argument = prepare(node.argument, self, named);
    return (params, datum, event, item) => op(argument(params, datum, event, item));
  },

  ConditionalExpression(node, self, named) {
    const test = prepare(node.test, self, named);
    const consequent = prepare(node.consequent, self, named);
    const alternate = prepare(node.alternate, self, named);
    return (params, datum, event, item) => (test(params, datum, event, item)
      ? consequent(params, datum, event, item)
      : alternate(params, datum, event, item));
  },

  LogicalExpression(node, self, named) {
    const left = prepare(node.left, self, named);
    const right = prepare(node.right, self, named);
    if (node.operator === "&&") {
      return (params, datum, event, item) => left(params, datum, event, item) && right(params, datum, event, item);
    }
    return (params, datum, event, item) => left(params, datum, event, item) || right(params, datum, event, item);
  },

  ObjectExpression(node, self, named) {
    const properties = node.properties.map((property) => [
      prepare(property.key, self, true),
      prepare(property.value, self, named),
    ]);
    return (params, datum, event, item) => {
      const object = /** @type {Record<string, unknown>} */ ({});
      for (const [key, value] of properties) {
        const k = key(params, datum, event, item);
        const v = value(params, datum, event, item);
        if (DisallowedObjectProperties.has(k)) refuse("property", k);
        else if (DisallowedMethods.has(v)) refuse("method", k);
        else object[k] = v;
      }
      return object;
    };
  },
};

/** @param {Node | undefined} node @param {Record<string, any>} self @returns {Run} */
function prepare(node, self, named = false) {
  if (!node || !Object.hasOwn(Preparers, node.type)) return unevaluable(`a node of type ${node?.type}`);
  return Preparers[node.type](node, self, named);
}

// The `expr` option of a vega View: each method is called once per expression of the view.
/** @type {Record<string, (ctx: {functions: object}, expr: Node) => (...args: any[]) => any>} */
export const preparedExpressions = {
  // An expression that updates an operator's value.
  operator(ctx, expr) {
    const run = prepare(expr.ast, functionsObject(ctx.functions));
    return (params) => evaluate(run, params);
  },

  // An expression given as an operator's parameter.
  parameter(ctx, expr) {
    const run = prepare(expr.ast, functionsObject(ctx.functions));
    return (datum, params) => evaluate(run, params, datum);
  },

  // An expression applied to an event stream.
  event(ctx, expr) {
    const run = prepare(expr.ast, functionsObject(ctx.functions));
    return (event) => evaluate(run, undefined, undefined, event);
  },

  // An expression that handles an event-driven update.
  handler(ctx, expr) {
    const run = prepare(expr.ast, functionsObject(ctx.functions));
    return (params, event) => evaluate(run, params, event.item && event.item.datum, event);
  },

  // A mark's visual encoding: every channel's value set on the item; 1 if any changed. The
  // tooltip channel is the exception (`Tooltip`): the item is given its encoder's Tooltip,
  // evaluated only when the reader points at the item.
  encode(ctx, encode) {
    const { marktype, channels } = encode;
    const self = functionsObject(ctx.functions);
    const swap = marktype === "group" || marktype === "image" || marktype === "rect";
    const names = /** @type {string[]} */ ([]);
    const runs = /** @type {Run[]} */ ([]);
    let tooltip = /** @type {Tooltip | null} */ (null);
    for (const name in channels) {
      if (name === "tooltip") {
        tooltip = new Tooltip(prepare(channels[name].ast, self));
        continue;
      }
      names.push(name);
      runs.push(prepare(channels[name].ast, self));
    }
    /** @type {Run} */
    const run = (params, datum, event, item) => {
      let changed = 0;
      for (let i = 0; i < names.length; i += 1) {
        const value = runs[i](params, datum, undefined, item);
        if (item[names[i]] !== value) {
          item[names[i]] = value;
          changed = 1;
        }
      }
      if (tooltip) {
        tooltip.params = params;
        if (item.tooltip !== tooltip) {
          item.tooltip = tooltip;
          changed = 1;
        }
      }
      if (marktype !== "rule") adjustSpatial(item, channels, swap);
      return changed;
    };
    return (item, params) => evaluate(run, params, item.datum, undefined, item);
  },
};
