// For tests/browser/test_expressions.py: does the page's expression evaluator
// (content/assets/sim/expressions.js) do what vega-interpreter does?
//
// argv: the staged expressions.js (beside a staged vendor/vega-interpreter.js, which reads the
//       vega global), then a mode:
//   units   stdout: {case name: null, or why it failed}: each case evaluates expressions with
//           both evaluators and checks that they agree and give the expected values.
//   charts  stdin: [[base spec, next spec], ...] (Vega-Lite, as sims return them)
//           stdout: per pair {fresh: new views of both specs draw the same SVG with either
//           evaluator, kept: null (the page would not keep the view) or whether a kept view
//           updated to the next spec, then back to the base one, draws with the evaluator
//           what it draws with vega-interpreter, error: message}

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import * as vega from "vega";
import { expressionInterpreter } from "vega-interpreter";
import * as vegaLite from "vega-lite";
import { lift, shape, sized, update } from "../../content/assets/sim/livechart.js";

globalThis.vega = vega; // what the staged vega-interpreter reads, as in the page
const { preparedExpressions, shown } = await import(pathToFileURL(process.argv[2]).href);
const EVALUATORS = { ours: preparedExpressions, reference: expressionInterpreter };

// -- units ----------------------------------------------------------------------------------

// A functions object as a view's context has one: Vega's functions are not needed here, the
// cases' own are (they record their calls and what `this` is).
function context(calls) {
  const functions = {
    probe: (value) => {
      calls.push(value);
      return value;
    },
    thisContext() {
      return this.context;
    },
    thisX() {
      return this.x();
    },
  };
  const fn = Object.create(functions);
  fn.context = { name: "the view's context" };
  return fn;
}

// Run `body(evaluate, {calls, errors, fn, expr})` once per evaluator `expr`, where
// evaluate(kind, source, ...args) prepares the expression (or encoding) once with expr[kind]
// and calls it with args, `calls` are the values probe() was called with, `errors` what was
// logged and `fn` the functions object; check that both evaluators give the same result,
// and that it is `expected`.
function agree(body, expected) {
  const results = {};
  for (const [name, expr] of Object.entries(EVALUATORS)) {
    const calls = [];
    const errors = [];
    const fn = context(calls);
    const prepared = new Map();
    const evaluate = (kind, source, ...args) => {
      const key = kind === "encode" ? source : `${kind}:${source}`;
      if (!prepared.has(key)) {
        const node = kind === "encode" ? source : { ast: vega.parseExpression(source) };
        prepared.set(key, expr[kind]({ functions: fn }, node));
      }
      return prepared.get(key)(...args);
    };
    const log = console.error;
    console.error = (message) => errors.push(message);
    try {
      results[name] = body(evaluate, { calls, errors, fn, expr });
    } finally {
      console.error = log;
    }
  }
  assert.deepEqual(results.ours, results.reference, "the evaluators disagree");
  assert.deepEqual(results.ours, expected);
}

const encoding = (marktype, channels) => ({
  marktype,
  channels: Object.fromEntries(Object.entries(channels).map(
    ([name, source]) => [name, { ast: vega.parseExpression(source) }])),
});

const CASES = {
  "identifiers: parameters, constants, datum, event and item": () => agree((evaluate) => {
    const params = { $a: 1, $PI: 99, $NaN: 5, $E: 6 };
    const datum = { x: 2 };
    const event = { type: "click", item: { datum: { x: 3 } } };
    const item = { datum, mark: { name: "m" } };
    evaluate("encode", encoding("symbol", { text: "item.mark.name", size: "datum.x + a" }), item, params);
    return {
      param: evaluate("operator", "a", params),
      missing: evaluate("operator", "b", params),
      constant: evaluate("operator", "PI + E", params), // a constant wins over a parameter
      falsy: evaluate("operator", "NaN", params), // NaN is falsy: the parameter answers
      inherited: evaluate("operator", "toString", params) === Object.prototype.toString,
      datum: evaluate("parameter", "datum", datum, params) === datum,
      event: evaluate("handler", "event.type + datum.x", params, event),
      item: [item.text, item.size],
    };
  }, {
    param: 1, missing: undefined, constant: Math.PI + Math.E, falsy: 5, inherited: true,
    datum: true, event: "click3", item: ["m", 3],
  }),

  "identifiers are names after a dot and as object keys": () => agree((evaluate) => {
    const params = { $a: "x", $item: "no", $PI: "no" };
    const datum = { x: 1, item: 2, datum: 3, PI: 4, a: 5 };
    return [
      evaluate("parameter", "datum.item + datum.datum + datum.PI", datum, params),
      evaluate("parameter", "datum[a]", datum, params), // computed: a is a parameter
      evaluate("parameter", "datum.a", datum, params),
      evaluate("parameter", "{datum: 1, item: 2, PI: 3, a: a, 'b': 4, 5: 6}", datum, params),
    ];
  }, [9, 1, 5, { datum: 1, item: 2, PI: 3, a: "x", b: 4, 5: 6 }]),

  "members that are dangerous functions are refused": () => agree((evaluate, { errors }) => {
    const params = { $f: setTimeout, $c: "constructor" };
    return [
      evaluate("parameter", "datum.f", { f: setInterval }, params),
      evaluate("parameter", "datum.constructor.constructor", {}, params),
      evaluate("parameter", "datum[c][c]", {}, params),
      evaluate("parameter", "datum.constructor.name", {}, params),
      evaluate("operator", "f", params) === setTimeout, // a bare parameter is no member
      errors,
    ];
  }, [undefined, undefined, undefined, "Object", true, [
    'Prevented interpretation of member "f" which could lead to insecure code execution',
    'Prevented interpretation of member "constructor" which could lead to insecure code execution',
    'Prevented interpretation of member "constructor" which could lead to insecure code execution',
  ]]),

  "object keys and values that are dangerous are refused": () => agree((evaluate, { errors }) => {
    const params = { $f: setTimeout, $g: Math.max };
    return [
      evaluate("operator", "{'__proto__': 1, constructor: 2, a: 3}", params),
      evaluate("operator", "{a: f, b: g}", params).b === Math.max,
      errors,
    ];
  }, [{ a: 3 }, true, [
    'Prevented interpretation of property "__proto__" which could lead to insecure code execution',
    'Prevented interpretation of property "constructor" which could lead to insecure code execution',
    'Prevented interpretation of method "a" which could lead to insecure code execution',
  ]]),

  "calls: _names, a lazy if, this, and functions added later": () => agree((evaluate, { calls, fn }) => {
    const params = { $yes: true, $no: false };
    const results = [
      evaluate("operator", "_abs(-2) + abs(-3)", params),
      evaluate("operator", "if(no, probe(1), probe(2))", params),
      evaluate("operator", "_if(yes, probe(3), probe(4))", params),
      evaluate("operator", "thisContext() === thisContext()", params),
      evaluate("operator", "thisContext()", params) === fn.context,
      evaluate("operator", "max(probe(5), probe(6), probe(7))", params),
    ];
    const before = () => evaluate("operator", "later(1)", params);
    assert.throws(before, TypeError); // prepared before it exists, and it fails
    fn.later = (value) => value + 1;
    const abs = () => evaluate("operator", "abs(-4)", params);
    results.push(before(), [...calls], abs());
    fn.abs = () => "the view's own abs"; // a view's functions come before vega-interpreter's
    results.push(abs());
    return results;
  }, [5, 2, 3, true, true, 7, 2, [2, 3, 5, 6, 7], 4, "the view's own abs"]),

  "event functions go to event.vega, called by name or from a function": () => agree((evaluate) => {
    const event = {
      vega: {
        view: () => "view", item: () => "item", group: (name) => `group ${name}`,
        xy: () => [1, 2], x: (item) => (item ? "x of item" : "x"), y: () => "y",
      },
    };
    return [
      ...["view()", "item()", "group('g')", "xy()", "x()", "_y()", "x(1)", "thisX()"].map(
        (source) => evaluate("event", source, event)),
      evaluate("handler", "x()", {}, event),
    ];
  }, ["view", "item", "group g", [1, 2], "x", "y", "x of item", "x", "x"]),

  "global and sticky regular expressions are fresh each time": () => agree((evaluate) => {
    const params = {};
    const global = [evaluate("operator", "/a/g", params), evaluate("operator", "/a/g", params)];
    const sticky = [evaluate("operator", "/a/y", params), evaluate("operator", "/a/y", params)];
    const plain = [evaluate("operator", "/a/i", params), evaluate("operator", "/a/i", params)];
    return {
      global: global[0] !== global[1] && String(global[0]) === "/a/g",
      sticky: sticky[0] !== sticky[1] && String(sticky[0]) === "/a/y",
      plain: plain[0] === plain[1],
      // a shared /a/g would remember where it matched, and fail every other time
      test: [1, 2, 3].map(() => evaluate("operator", "test(/a/g, 'a')", params)),
    };
  }, { global: true, sticky: true, plain: true, test: [true, true, true] }),

  "operators, lazy && || and ?:": () => agree((evaluate, { calls }) => {
    const params = { $s: "2", $z: 0 };
    const sources = [
      "1 + s", "7 % 4", "s * 3", "1 - s", "7 / 2", "1 < s", "s <= 1", "3 > 2", "2 >= s",
      "s == 2", "s != 2", "s === 2", "s !== 2", "5 & 3", "5 | 3", "5 ^ 3", "1 << 3",
      "-8 >> 1", "-8 >>> 28", "-s", "+s", "~5", "!z", "!!s",
      "z || 'x'", "s || probe(1)", "z && probe(2)", "s && 'y'", "s ? 'a' : probe(3)",
      "z ? probe(4) : 'b'", "z ? 1 : z ? 2 : 3",
    ];
    return [...sources.map((source) => evaluate("operator", source, params)), calls];
  }, [
    "12", 3, 6, -1, 3.5, true, false, true, true, true, false, false, true, 1, 7, 6, 8, -4,
    15, -2, 2, -6, true, true, "x", "2", 0, "y", "a", "b", 3, [],
  ]),

  "arrays and objects are new each time": () => agree((evaluate) => {
    const params = { $a: 1 };
    const arrays = [evaluate("operator", "[a, [a]]", params), evaluate("operator", "[a, [a]]", params)];
    const objects = [evaluate("operator", "{a: a}", params), evaluate("operator", "{a: a}", params)];
    arrays[0][1].push(2);
    return [arrays, objects[0] !== objects[1]];
  }, [[[1, [1, 2]], [1, [1]]], true]),

  "encode: what changed, and positions from x2, xc, y2 and yc": () => agree((evaluate) => {
    const rect = encoding("rect", { x: "datum.a", x2: "datum.b", y: "datum.c", y2: "datum.d" });
    const box = { datum: { a: 10, b: 4, c: 1, d: 3 } };
    const first = evaluate("encode", rect, box, {});
    const again = evaluate("encode", rect, box, {}); // x was swapped with x2, so it changes
    const same = { datum: { a: 1, b: 4, c: 1, d: 3 } };
    const settled = [evaluate("encode", rect, same, {}), evaluate("encode", rect, same, {})];
    const rule = encoding("rule", { x: "datum.a", x2: "datum.b" });
    const line = { datum: { a: 10, b: 4 } };
    evaluate("encode", rule, line, {});
    const symbol = encoding("symbol", { xc: "datum.a", width: "4", yc: "datum.b", y2: "9" });
    const dot = { datum: { a: 10, b: 5 } };
    evaluate("encode", symbol, dot, {});
    const text = encoding("text", { x: "datum.a", x2: "datum.b", text: "datum.t" });
    const label = { datum: { a: 10, b: 4, t: NaN } };
    const nan = [evaluate("encode", text, label, {}), evaluate("encode", text, label, {})];
    const plain = (item) => Object.fromEntries(Object.entries(item).filter(([key]) => key !== "datum"));
    return [first, again, plain(box), settled, plain(line), plain(dot), nan, plain(label).x];
  }, [
    1, 1, { x: 4, x2: 10, width: 6, y: 1, y2: 3, height: 2 }, [1, 0], { x: 10, x2: 4 },
    { xc: 10, width: 4, yc: 5, y2: 9, x: 8, y: 5 }, [1, 1], 10,
  ]),

  // Not `agree`: here the evaluators differ on purpose (expressions.js, Tooltip).
  "encode: a tooltip is vega-interpreter's value, evaluated when shown": () => {
    const channels = encoding("symbol", { size: "datum.x", tooltip: "{X: datum.x * 2, S: datum.s + a}" });
    const prepare = (expr) => expr.encode({ functions: context([]) }, channels);
    const [ours, reference] = [prepare(preparedExpressions), prepare(expressionInterpreter)];
    const params = { $a: "!" };
    const dot = { datum: { x: 3, s: "p" } };
    const theirs = { datum: dot.datum };
    assert.equal(ours(dot, params), 1);
    reference(theirs, params);
    assert.deepEqual(shown(dot.tooltip, dot), theirs.tooltip);
    assert.deepEqual(theirs.tooltip, { X: 6, S: "p!" });
    // An update that changes no drawn channel changes nothing of the item; its tooltip still
    // shows the new values (vega-interpreter's item always changes: a new tooltip object).
    assert.equal(ours(dot, params), 0);
    assert.equal(reference(theirs, params), 1);
    dot.datum.s = "q";
    assert.equal(ours(dot, { $a: "?" }), 0);
    reference(theirs, { $a: "?" });
    assert.deepEqual(shown(dot.tooltip, dot), theirs.tooltip);
    assert.deepEqual(theirs.tooltip, { X: 6, S: "q?" });
    dot.datum.x = 4;
    assert.equal(ours(dot, params), 1); // its size changed
    assert.deepEqual(shown(dot.tooltip, dot), { X: 8, S: "q!" });
    assert.equal(shown("given", dot), "given"); // a value no encoder set is shown as it is
  },

  "nodes it cannot evaluate fail when evaluated, not when prepared": () => agree((evaluate, { expr, fn }) => {
    const call = vega.parseExpression("a.b(1)"); // a call of a member (Vega's parser refuses it)
    const operator = expr.operator({ functions: fn }, { ast: call });
    const encode = expr.encode({ functions: fn }, { marktype: "text", channels: { text: { ast: call } } });
    assert.throws(() => operator({ $a: { b: () => 1 } }), TypeError);
    assert.throws(() => encode({ datum: {} }, { $a: { b: () => 1 } }), TypeError);
    return "prepared, then failed";
  }, "prepared, then failed"),
};

async function units() {
  const answers = {};
  for (const [name, run] of Object.entries(CASES)) {
    try {
      run();
      answers[name] = null;
    } catch (error) {
      answers[name] = String(error.stack ?? error);
    }
  }
  return answers;
}

// -- charts ---------------------------------------------------------------------------------

const WIDTH = 480; // "container" has no container here: every view gets the same width

function fixed(spec) {
  return spec.width === "container" ? { ...spec, width: WIDTH } : spec;
}

// Vega numbers clip paths across every view it ever drew: the number is not the picture.
function picture(svg) {
  return svg.replace(/clip\d+/g, "clip");
}

async function view(spec, expr) {
  const runtime = vega.parse(vegaLite.compile(spec).spec, null, { ast: true });
  const made = new vega.View(runtime, { expr, renderer: "none" });
  await made.runAsync();
  return made;
}

// What a new view of a spec draws with an evaluator (a sim's base spec is in many pairs).
const drawnFresh = new Map();

async function fresh(spec, expr) {
  const key = JSON.stringify([spec, expr === preparedExpressions]);
  if (!drawnFresh.has(key)) {
    const made = await view(fixed(spec), expr);
    drawnFresh.set(key, picture(await made.toSVG()));
    made.finalize();
  }
  return drawnFresh.get(key);
}

// A new view of each spec, then (when the page would keep it) the base spec's view updated
// to the next spec and back, with one evaluator: every SVG drawn.
async function drawings(base, next, expr) {
  const drawn = { fresh: [await fresh(base, expr), await fresh(next, expr)] };
  const before = lift(fixed(base));
  const after = lift(fixed(next));
  if (shape(before) === null || shape(before) !== shape(after)) return drawn;
  const kept = await view(sized(before), expr);
  update(kept, before, after);
  await kept.runAsync();
  drawn.kept = [picture(await kept.toSVG())];
  update(kept, after, lift(fixed(base)));
  await kept.runAsync();
  drawn.kept.push(picture(await kept.toSVG()));
  kept.finalize();
  return drawn;
}

async function charts() {
  const answers = [];
  for (const [base, next] of JSON.parse(readFileSync(0, "utf8"))) {
    try {
      const ours = await drawings(base, next, preparedExpressions);
      const reference = await drawings(base, next, expressionInterpreter);
      answers.push({
        fresh: ours.fresh.length === 2 && ours.fresh.every((svg, i) => svg === reference.fresh[i]),
        kept: ours.kept ? ours.kept.every((svg, i) => svg === reference.kept[i]) : null,
        drawn: ours.fresh[0].length,
      });
    } catch (error) {
      answers.push({ fresh: false, kept: false, error: String(error.stack ?? error) });
    }
  }
  return answers;
}

const mode = process.argv[3];
process.stdout.write(JSON.stringify(mode === "units" ? await units() : await charts()));
