// @ts-check
// The phase of one embedded sim, and how events move it: the widget's state, without a DOM.
//
// widget.js feeds every event (the reader's changes, the worker's messages, the watchdog)
// through `transition`, performs the effects it returns and renders the state it returns;
// nothing else decides when a sim runs. Node's test runner checks every row below
// (tests/widget/phase.test.mjs).
//
// Phases:
//   prerendered  the build's results; Python not requested for this sim yet
//   loading      Python starting, or the sim's module loading (again, after a new worker)
//   ready        the results shown are the last run's; nothing in flight
//   running      one run in flight: sent, or its answer being drawn
//   queued       one run in flight, and newer inputs waiting for it (the latest input wins)
//   stopped      the last run took too long and was stopped; waits for inputs that differ
//   error        the live version cannot run; the prerendered results stay (final)
//
// Beside the phase: `live` (a live result has been drawn), `loaded` (the current worker has
// the module), `owed` (the inputs shown are to be run once the module is loaded), `awaiting`
// (the run in flight has not answered yet) and `reason` (why the phase is error).
//
// Events: start (Python is requested for this sim), change {stuck} (an input changed;
// stuck: the inputs are those that took too long), loaded (the worker has the module),
// answer (the run's answer arrived), drawn (that answer is on screen), timeout {stuck} (the
// run in flight took too long), restart (the worker was replaced: every sim loads again),
// fail {reason}.
//
// A run answered in two parts (sims/kit/phased.py) sends its first part before its answer:
// sim.js draws it while the run stays in flight (running, awaiting), so it is no event here;
// the whole answer is the `answer` event, as any run's.
//
// Effects: load (ask the worker for the module), run (send the inputs shown, start the
// watchdog), draw (show the answer, then send drawn), stop (replace the worker, tell the
// reader).
//
// | phase       | event   | when                 | next                           | effects |
// |-------------|---------|----------------------|--------------------------------|---------|
// | prerendered | start   |                      | loading, owed (the first run)  | load    |
// | prerendered | change  |                      | prerendered, owed              |         |
// | loading     | change  |                      | loading, owed                  |         |
// | loading     | loaded  | owed                 | running                        | run     |
// | loading     | loaded  | not owed             | ready                          |         |
// | loading     | restart |                      | loading                        | load    |
// | ready       | change  |                      | running                        | run     |
// | ready       | restart |                      | loading                        | load    |
// | running     | change  |                      | queued                         |         |
// | running     | answer  |                      | running, answered              | draw    |
// | running     | drawn   | loaded               | ready, live                    |         |
// | running     | drawn   | not loaded           | loading, live                  |         |
// | running     | timeout | awaiting             | stopped, owed unless stuck     | stop    |
// | running     | restart | awaiting (run lost)  | loading, owed                  | load    |
// | running     | restart | drawing              | running, not loaded            | load    |
// | running     | loaded  | not loaded           | running, loaded                |         |
// | queued      | change  |                      | queued                         |         |
// | queued      | answer  |                      | running (that answer is old)   | run     |
// | queued      | drawn   | loaded               | running, live                  | run     |
// | queued      | drawn   | not loaded           | loading, owed, live            |         |
// | queued      | timeout | awaiting             | stopped, owed unless stuck     | stop    |
// | queued      | restart | awaiting (run lost)  | loading, owed                  | load    |
// | queued      | restart | drawing              | queued, not loaded             | load    |
// | queued      | loaded  | not loaded           | queued, loaded                 |         |
// | stopped     | change  | stuck                | stopped, not owed              |         |
// | stopped     | change  | loaded               | running                        | run     |
// | stopped     | change  | not loaded           | stopped, owed                  |         |
// | stopped     | loaded  | owed                 | running                        | run     |
// | stopped     | loaded  | not owed             | stopped, loaded                |         |
// | stopped     | restart |                      | stopped, not loaded            | load    |
// | any but error | fail  |                      | error, reason                  |         |
//
// Every other pair leaves the state as it is (error ignores everything). Entering running
// through `run` sets awaiting and clears owed. data-state, the page's contract, follows from
// the state (`dataState`): prerendered, then loading until a live result is drawn, then
// ready; or error.

/** @typedef {"prerendered" | "loading" | "ready" | "running" | "queued" | "stopped" | "error"} Phase */

/**
 * @typedef {object} SimState
 * @property {Phase} phase
 * @property {boolean} live a live result has been drawn
 * @property {boolean} loaded the current worker has the sim's module
 * @property {boolean} owed the inputs shown are to be run once the module is loaded
 * @property {boolean} awaiting the run in flight has not answered yet
 * @property {string} reason why the live version cannot run (phase error)
 */

/**
 * @typedef {{type: "start"} | {type: "change", stuck: boolean} | {type: "loaded"}
 *   | {type: "answer"} | {type: "drawn"} | {type: "timeout", stuck: boolean}
 *   | {type: "restart"} | {type: "fail", reason: string}} SimEvent
 */

/** @typedef {"load" | "run" | "draw" | "stop"} Effect */

/** @typedef {{state: SimState, effects: Effect[]}} Step */

/** @typedef {(state: SimState, event: any) => Step} Handler */

/** @type {readonly Phase[]} */
export const PHASES = ["prerendered", "loading", "ready", "running", "queued", "stopped", "error"];

/** @returns {SimState} a sim as the build wrote it */
export function initial() {
  return { phase: "prerendered", live: false, loaded: false, owed: false, awaiting: false, reason: "" };
}

/**
 * @param {SimState} state
 * @param {Partial<SimState>} [changes]
 * @param {Effect[]} [effects]
 * @returns {Step}
 */
function to(state, changes = {}, effects = []) {
  return { state: { ...state, ...changes }, effects };
}

/** @type {(state: SimState, changes?: Partial<SimState>) => Step} the run is sent */
const run = (state, changes = {}) => to(state, { ...changes, phase: "running", awaiting: true, owed: false }, ["run"]);

/** @type {Handler} the worker was replaced; a run still unanswered was lost with it */
function restartInFlight(state) {
  if (state.awaiting) return to(state, { phase: "loading", loaded: false, owed: true, awaiting: false }, ["load"]);
  return to(state, { loaded: false }, ["load"]);
}

/** @type {Handler} the run in flight took too long; its inputs wait for a change */
function timeout(state, event) {
  if (!state.awaiting) return to(state);
  return to(state, { phase: "stopped", awaiting: false, owed: !event.stuck }, ["stop"]);
}

/** @type {Handler} the module is back in a new worker while an answer is still drawn */
function loadedInFlight(state) {
  return to(state, { loaded: true });
}

/** @type {Record<Phase, Partial<Record<SimEvent["type"], Handler>>>} */
const TRANSITIONS = {
  prerendered: {
    start: (state) => to(state, { phase: "loading", owed: true }, ["load"]),
    change: (state) => to(state, { owed: true }),
  },
  loading: {
    change: (state) => to(state, { owed: true }),
    loaded: (state) => (state.owed ? run(state, { loaded: true }) : to(state, { phase: "ready", loaded: true })),
    restart: (state) => to(state, { loaded: false }, ["load"]),
  },
  ready: {
    change: (state) => run(state),
    restart: (state) => to(state, { phase: "loading", loaded: false, owed: false }, ["load"]),
  },
  running: {
    change: (state) => to(state, { phase: "queued" }),
    answer: (state) => to(state, { awaiting: false }, ["draw"]),
    drawn: (state) => to(state, { phase: state.loaded ? "ready" : "loading", live: true, owed: false }),
    timeout,
    restart: restartInFlight,
    loaded: loadedInFlight,
  },
  queued: {
    change: (state) => to(state),
    answer: (state) => run(state),
    drawn: (state) => (state.loaded
      ? run(state, { live: true })
      : to(state, { phase: "loading", live: true, owed: true })),
    timeout,
    restart: restartInFlight,
    loaded: loadedInFlight,
  },
  stopped: {
    change: (state, event) => {
      if (event.stuck) return to(state, { owed: false });
      return state.loaded ? run(state) : to(state, { owed: true });
    },
    loaded: (state) => (state.owed ? run(state, { loaded: true }) : to(state, { loaded: true })),
    restart: (state) => to(state, { loaded: false }, ["load"]),
  },
  error: {},
};

/**
 * The state after an event, and what the widget must do about it.
 * @param {SimState} state
 * @param {SimEvent} event
 * @returns {Step}
 */
export function transition(state, event) {
  if (event.type === "fail") {
    return state.phase === "error" ? to(state) : to(state, { phase: "error", reason: event.reason });
  }
  const handler = TRANSITIONS[state.phase][event.type];
  return handler ? handler(state, event) : to(state);
}

/**
 * The element's data-state, the page's contract: prerendered -> loading -> ready, or error.
 * @param {SimState} state
 * @returns {"prerendered" | "loading" | "ready" | "error"}
 */
export function dataState(state) {
  if (state.phase === "prerendered" || state.phase === "error") return state.phase;
  return state.live ? "ready" : "loading";
}
