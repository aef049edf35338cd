// The sim's phase machine (content/assets/sim/phase.js), row by row of its table, and the
// stories the widget relies on: the first live run, the latest input winning, a run that
// takes too long, a worker replaced under a sim, a failure that is final.
// Run by tests/widget/test_widget_logic.py (node --test), no browser.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { PHASES, dataState, initial, transition } from "../../content/assets/sim/phase.js";

const EVENTS = [
  { type: "start" },
  { type: "change", stuck: false },
  { type: "change", stuck: true },
  { type: "loaded" },
  { type: "answer" },
  { type: "drawn" },
  { type: "timeout", stuck: false },
  { type: "timeout", stuck: true },
  { type: "restart" },
  { type: "fail", reason: "no Python" },
];

/** A state in `phase` with the given flags, the others as a fresh sim has them. */
function at(phase, flags = {}) {
  return { ...initial(), phase, ...flags };
}

/** Runs events one after another; returns the last state and every effect in order. */
function play(state, ...events) {
  const effects = [];
  for (const event of events) {
    const step = transition(state, event);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

// Every row of the table in phase.js's header: [phase, flags, event, next phase, next flags, effects].
const ROWS = [
  ["prerendered", {}, { type: "start" }, "loading", { owed: true }, ["load"]],
  ["prerendered", {}, { type: "change", stuck: false }, "prerendered", { owed: true }, []],
  ["loading", {}, { type: "change", stuck: false }, "loading", { owed: true }, []],
  ["loading", { owed: true }, { type: "loaded" }, "running", { loaded: true, awaiting: true, owed: false }, ["run"]],
  ["loading", { owed: false }, { type: "loaded" }, "ready", { loaded: true }, []],
  ["loading", { owed: true }, { type: "restart" }, "loading", { loaded: false, owed: true }, ["load"]],
  ["ready", { loaded: true, live: true }, { type: "change", stuck: false }, "running", { awaiting: true }, ["run"]],
  ["ready", { loaded: true, live: true }, { type: "restart" }, "loading", { loaded: false, owed: false, live: true }, ["load"]],
  ["running", { loaded: true, awaiting: true }, { type: "change", stuck: false }, "queued", { awaiting: true }, []],
  ["running", { loaded: true, awaiting: true }, { type: "answer" }, "running", { awaiting: false }, ["draw"]],
  ["running", { loaded: true }, { type: "drawn" }, "ready", { live: true }, []],
  ["running", { loaded: false }, { type: "drawn" }, "loading", { live: true, owed: false }, []],
  ["running", { loaded: true, awaiting: true }, { type: "timeout", stuck: true }, "stopped", { owed: false, awaiting: false }, ["stop"]],
  ["running", { loaded: true, awaiting: true }, { type: "restart" }, "loading", { loaded: false, owed: true, awaiting: false }, ["load"]],
  ["running", { loaded: true, awaiting: false }, { type: "restart" }, "running", { loaded: false }, ["load"]],
  ["running", { loaded: false }, { type: "loaded" }, "running", { loaded: true }, []],
  ["queued", { loaded: true, awaiting: true }, { type: "change", stuck: false }, "queued", { awaiting: true }, []],
  ["queued", { loaded: true, awaiting: true }, { type: "answer" }, "running", { awaiting: true }, ["run"]],
  ["queued", { loaded: true }, { type: "drawn" }, "running", { live: true, awaiting: true }, ["run"]],
  ["queued", { loaded: false }, { type: "drawn" }, "loading", { live: true, owed: true }, []],
  ["queued", { loaded: true, awaiting: true }, { type: "timeout", stuck: false }, "stopped", { owed: true, awaiting: false }, ["stop"]],
  ["queued", { loaded: true, awaiting: true }, { type: "timeout", stuck: true }, "stopped", { owed: false }, ["stop"]],
  ["queued", { loaded: true, awaiting: true }, { type: "restart" }, "loading", { loaded: false, owed: true, awaiting: false }, ["load"]],
  ["queued", { loaded: true, awaiting: false }, { type: "restart" }, "queued", { loaded: false }, ["load"]],
  ["queued", { loaded: false }, { type: "loaded" }, "queued", { loaded: true }, []],
  ["stopped", { loaded: true, owed: true }, { type: "change", stuck: true }, "stopped", { owed: false }, []],
  ["stopped", { loaded: true }, { type: "change", stuck: false }, "running", { awaiting: true, owed: false }, ["run"]],
  ["stopped", { loaded: false }, { type: "change", stuck: false }, "stopped", { owed: true }, []],
  ["stopped", { owed: true }, { type: "loaded" }, "running", { loaded: true, awaiting: true, owed: false }, ["run"]],
  ["stopped", { owed: false }, { type: "loaded" }, "stopped", { loaded: true }, []],
  ["stopped", { loaded: true }, { type: "restart" }, "stopped", { loaded: false }, ["load"]],
];

describe("every row of the table", () => {
  for (const [phase, flags, event, next, nextFlags, effects] of ROWS) {
    const label = Object.entries(flags).map(([name, value]) => (value ? name : `not ${name}`)).join(", ");
    test(`${phase}${label ? ` (${label})` : ""} + ${event.type}${"stuck" in event ? (event.stuck ? " (stuck)" : "") : ""} -> ${next}`, () => {
      const step = transition(at(phase, flags), event);
      assert.equal(step.state.phase, next);
      for (const [name, value] of Object.entries(nextFlags)) assert.equal(step.state[name], value, name);
      assert.deepEqual(step.effects, effects);
    });
  }

  test("any phase but error fails into error with the reason", () => {
    for (const phase of PHASES.filter((p) => p !== "error")) {
      const step = transition(at(phase, { loaded: true, awaiting: true }), { type: "fail", reason: "no Python" });
      assert.deepEqual([step.state.phase, step.state.reason, step.effects], ["error", "no Python", []], phase);
    }
  });
});

test("every pair the table does not name leaves the state as it is and does nothing", () => {
  const named = new Set(ROWS.map(([phase, , event]) => `${phase} ${event.type}`));
  let checked = 0;
  for (const phase of PHASES) {
    for (const event of EVENTS) {
      if (event.type === "fail" || named.has(`${phase} ${event.type}`)) continue;
      for (const flags of [{}, { loaded: true }, { loaded: true, awaiting: true, owed: true, live: true }]) {
        // A timeout the watchdog could not have set (nothing awaited) is ignored too.
        const state = at(phase, flags);
        const step = transition(state, event);
        assert.deepEqual(step, { state, effects: [] }, `${phase} + ${event.type} ${JSON.stringify(flags)}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 60, `only ${checked} pairs checked`);
});

test("a timeout with nothing awaited is ignored (the answer came first)", () => {
  for (const phase of ["running", "queued"]) {
    const state = at(phase, { loaded: true, awaiting: false });
    assert.deepEqual(transition(state, { type: "timeout", stuck: true }), { state, effects: [] });
  }
});

test("error is final: no event moves it or asks for anything", () => {
  const state = at("error", { reason: "no Python" });
  for (const event of EVENTS) assert.deepEqual(transition(state, event), { state, effects: [] }, event.type);
});

test("transition never changes the state it is given", () => {
  const state = Object.freeze(at("running", { loaded: true, awaiting: true }));
  for (const event of EVENTS) transition(state, event); // a write to a frozen object throws
});

describe("data-state, the page's contract", () => {
  test("is prerendered, then loading until a live result is drawn, then ready", () => {
    const seen = [];
    let state = initial();
    for (const event of [{ type: "start" }, { type: "loaded" }, { type: "answer" }, { type: "drawn" }]) {
      seen.push(dataState(state));
      state = transition(state, event).state;
    }
    seen.push(dataState(state));
    assert.deepEqual(seen, ["prerendered", "loading", "loading", "loading", "ready"]);
  });

  test("stays ready once live, through new workers and stopped runs", () => {
    for (const phase of ["loading", "running", "queued", "stopped", "ready"]) {
      assert.equal(dataState(at(phase, { live: true })), "ready", phase);
      assert.equal(dataState(at(phase, { live: false })), "loading", phase);
    }
  });

  test("is error whenever the phase is, live or not", () => {
    assert.equal(dataState(at("error", { live: true })), "error");
    assert.equal(dataState(at("error")), "error");
  });
});

describe("stories", () => {
  test("the first live run is the prerendered inputs, sent once the module is loaded", () => {
    const { state, effects } = play(initial(), { type: "start" }, { type: "loaded" });
    assert.equal(state.phase, "running");
    assert.deepEqual(effects, ["load", "run"]);
  });

  test("changes while Python starts wait, and run once, when the module is loaded", () => {
    const { state, effects } = play(initial(), { type: "start" },
      { type: "change", stuck: false }, { type: "change", stuck: false }, { type: "loaded" });
    assert.equal(state.phase, "running");
    assert.deepEqual(effects, ["load", "run"]);
  });

  test("the latest input wins: changes during a run make one more run, not one each", () => {
    const live = at("ready", { loaded: true, live: true });
    const { state, effects } = play(live, { type: "change", stuck: false },
      { type: "change", stuck: false }, { type: "change", stuck: false },
      { type: "answer" }, { type: "answer" }, { type: "drawn" });
    assert.equal(state.phase, "ready");
    // The first answer is for old inputs: not drawn, the newest run is sent at once.
    assert.deepEqual(effects, ["run", "run", "draw"]);
  });

  test("a change while an answer is drawn runs once the drawing is done", () => {
    const live = at("ready", { loaded: true, live: true });
    const { state, effects } = play(live, { type: "change", stuck: false }, { type: "answer" },
      { type: "change", stuck: false }, { type: "drawn" });
    assert.equal(state.phase, "running");
    assert.deepEqual(effects, ["run", "draw", "run"]);
  });

  test("a run that takes too long is stopped, the worker replaced, and it is not run again", () => {
    const live = at("ready", { loaded: true, live: true });
    const { state, effects } = play(live, { type: "change", stuck: false },
      { type: "timeout", stuck: true }, { type: "restart" }, { type: "loaded" },
      { type: "change", stuck: true });
    assert.deepEqual([state.phase, state.live], ["stopped", true]);
    assert.deepEqual(effects, ["run", "stop", "load"]);
    const next = transition(state, { type: "change", stuck: false });
    assert.deepEqual([next.state.phase, next.effects], ["running", ["run"]]);
  });

  test("inputs changed while the new worker starts run once it has the module", () => {
    const stopped = at("stopped", { loaded: false, live: true });
    const { state, effects } = play(stopped, { type: "change", stuck: false }, { type: "loaded" });
    assert.deepEqual([state.phase, effects], ["running", ["run"]]);
  });

  test("a sim idle when another sim's worker is replaced loads again and runs nothing", () => {
    const { state, effects } = play(at("ready", { loaded: true, live: true }), { type: "restart" },
      { type: "loaded" });
    assert.deepEqual([state.phase, effects], ["ready", ["load"]]);
  });

  test("a run lost with a replaced worker runs again in the new one", () => {
    const { state, effects } = play(at("running", { loaded: true, awaiting: true, live: true }),
      { type: "restart" }, { type: "loaded" });
    assert.deepEqual([state.phase, effects], ["running", ["load", "run"]]);
  });

  test("an answer drawn while the worker is replaced is not run again", () => {
    const { state, effects } = play(at("running", { loaded: true, awaiting: false, live: true }),
      { type: "restart" }, { type: "drawn" }, { type: "loaded" });
    assert.deepEqual([state.phase, effects], ["ready", ["load"]]);
  });

  test("a reader's changes before Python is requested are run once it starts", () => {
    const { state, effects } = play(initial(), { type: "change", stuck: false }, { type: "start" },
      { type: "loaded" });
    assert.deepEqual([state.phase, effects], ["running", ["load", "run"]]);
  });

  test("Python that cannot start ends every sim in error, whatever it was doing", () => {
    for (const phase of PHASES.filter((p) => p !== "error")) {
      const { state } = play(at(phase), { type: "fail", reason: "Python could not start: 404" },
        { type: "loaded" }, { type: "change", stuck: false });
      assert.deepEqual([state.phase, state.reason], ["error", "Python could not start: 404"]);
    }
  });
});
