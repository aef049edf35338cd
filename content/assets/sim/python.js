// @ts-check
// The page's Python: one worker (worker.js) shared by every sim on the page.
//
// Sims join and leave as pages come and go (instant navigation). Each hears what the worker
// says about starting Python and loading modules, and gets the answers to its own runs. A
// run that takes too long cannot be interrupted inside the worker: `replace` ends the
// worker, starts another, and every sim loads its module again (`restart`).
//
// Answers are kept on the page, and while the worker is idle it makes the runs a reader is
// likely to ask for next (`ahead`, chosen by ahead.js): a step back, or a step on, is then
// answered in the frame of the key press.

import { AHEAD_DONE, AHEAD_UNDER_MS, KEPT, KeptAnswers, aheadOn, mark, runKey } from "./answers.js";

const WORKER_URL = new URL("worker.js", import.meta.url);
const REQUESTED = "ridgepoint:python-requested"; // a performance mark (scripts/bench/pageload.py)

/**
 * The worker's answer to a run (sims/kit/runner.py): a result, or why there is none.
 * A run answered in two parts (sims/kit/phased.py) answers first with `pending` (the summary
 * figures still to come, null in the result) and `more`; its whole answer follows.
 * @typedef {{ok: true, result: import("./results.js").SimResult, pending?: string[], more?: boolean}
 *   | {ok: false, kind: "input", input?: string, message: string}
 *   | {ok: false, kind: "sim", message: string}} Answer
 */

/**
 * What a sim hears from the worker.
 * @typedef {object} Listener
 * @property {(step: number, text: string) => void} progress Python is starting
 * @property {(module: string) => void} loaded a module can run
 * @property {(module: string, message: string) => void} failed a module could not be loaded
 * @property {(reason: string) => void} fail the worker cannot run anything
 * @property {() => void} restart the worker was replaced: load the module again
 * @property {(answer: Answer, partial?: boolean) => void} receive the answer to one of this
 *   sim's runs; `partial`: its first part, the whole answer to follow
 */

/** @typedef {(done: number, total: number, text: string) => void} Working a run's progress */

/**
 * The worker's answer to reading a file into a text input (sims/kit/runner.py, `read`).
 * `note`: what the input's reader understood (a pasted config.json's model), or "".
 * @typedef {{ok: true, value: string, note?: string} | {ok: false, input: string, message: string}} ReadAnswer
 */

/** @type {Worker | null} */
let worker = null;
/** @type {string | null} why the worker cannot run anything, once that is known */
let broken = null;
/** @type {Set<Listener>} */
const listeners = new Set();
/** @type {Map<number, Listener>} run id -> the sim waiting for it */
const runs = new Map();
/** @type {Map<number, Working>} run id -> who shows its progress, for a long run */
const progressOf = new Map();
/** @type {Map<number, (answer: ReadAnswer) => void>} read id -> who waits for its answer */
const reads = new Map();
let nextRunId = 1;

// Answers kept on the page and runs made ahead (answers.js, ahead.js).
const kept = new KeptAnswers();
/** @type {Map<number, {key: string, module: string, at: number}>} run id -> what was sent, when */
const sent = new Map();
/** @type {Map<string, Listener[]>} key of the run ahead in flight -> the sims waiting for it */
const awaited = new Map();
/** @type {{module: string, inputs: import("./inputs.js").Inputs}[]} runs wanted ahead, in order */
let wanted = [];
/** @type {number | null} the id of the run ahead in flight */
let aheadId = null;
/** @type {Map<string, number>} module -> how long its last run in the worker took (ms) */
const tookMs = new Map();
/** @type {WeakSet<Listener>} sims that have left the page: a kept answer is not theirs */
const departed = new WeakSet();

/** @param {Listener} listener @param {string} payload */
function deliver(listener, payload) {
  if (!departed.has(listener)) listener.receive(JSON.parse(payload));
}

/** @param {(listener: Listener) => void} tell */
function broadcast(tell) {
  for (const listener of listeners) tell(listener);
}

/** @param {string} reason */
function giveUp(reason) {
  broken ??= reason;
  broadcast((listener) => listener.fail(reason));
}

// What the worker asks for first once its script has run, one round trip after another:
// its second level of imports, then the runtime's manifest (pyodide_start.js). The page asks
// for them as it starts the worker, so that they are in the HTTP cache (the site's files
// are cacheable) or on their way when the worker asks. Not under a service worker: there a
// returning reader's files come from its cache, and each request waits its turn on its
// thread.
const AHEAD = ["pyodide_start.js", "unpack.js", "link.js", "../pyodide/snapshot.json"];

function fetchAhead() {
  if (navigator.serviceWorker?.controller) return;
  for (const name of AHEAD) {
    fetch(new URL(name, import.meta.url)).then((response) => response.arrayBuffer()).catch(() => {});
  }
}

/** @returns {Worker} */
function current() {
  if (worker) return worker;
  // When Python was first wanted on this page: the bench times Python's start from here.
  if (!performance.getEntriesByName(REQUESTED).length) {
    performance.mark(REQUESTED);
    fetchAhead();
  }
  const started = new Worker(WORKER_URL, { type: "module" });
  worker = started;
  started.onmessage = ({ data }) => {
    if (started !== worker) return; // a replaced worker's last messages
    if (data.type === "progress") broadcast((listener) => listener.progress(data.step, data.text));
    else if (data.type === "loaded") broadcast((listener) => listener.loaded(data.module));
    else if (data.type === "failed") broadcast((listener) => listener.failed(data.module, data.message));
    else if (data.type === "fatal") giveUp(`Python could not start: ${data.message}`);
    else if (data.type === "working") progressOf.get(data.id)?.(data.done, data.total, data.text);
    else if (data.type === "result" && data.more) runs.get(data.id)?.receive(JSON.parse(data.payload), true);
    else if (data.type === "result") answered(data.id, data.payload);
    else if (data.type === "read") {
      reads.get(data.id)?.(JSON.parse(data.payload));
      reads.delete(data.id);
    }
  };
  started.onerror = (event) => {
    event.preventDefault();
    if (started === worker) giveUp("the Python worker could not be started (a runtime file failed to load)");
  };
  return started;
}

// Python wanted before any sim has joined (start.js: a sim on the first screen, before
// widget.js has loaded); the sims join the worker started.
export function start() {
  current();
}

/**
 * A sim joins the page's Python. Returns why Python cannot run, when that is known already
 * (a sim met after the failure, under instant navigation), or null.
 * @param {Listener} listener
 * @returns {string | null}
 */
export function join(listener) {
  listeners.add(listener);
  return broken;
}

/** @param {Listener} listener */
export function leave(listener) {
  listeners.delete(listener);
  departed.add(listener);
  for (const [id, waiting] of runs) if (waiting === listener) runs.delete(id);
}

/**
 * @param {string} module
 * @param {string[]} files the sims files it needs
 */
export function load(module, files) {
  current().postMessage({ type: "load", module, files });
}

/**
 * The worker's answer to run `id`: kept (when it is a result), and given to whoever waits.
 * @param {number} id
 * @param {string} payload
 */
function answered(id, payload) {
  const run = sent.get(id);
  sent.delete(id);
  if (run) tookMs.set(run.module, performance.now() - run.at);
  const answer = JSON.parse(payload);
  if (run && answer.ok) kept.keep(run.key, payload);
  if (id === aheadId && run) {
    aheadId = null;
    mark(AHEAD_DONE, run.module);
    const waiting = awaited.get(run.key) ?? [];
    awaited.delete(run.key);
    for (const listener of waiting) deliver(listener, payload);
  } else {
    const listener = runs.get(id);
    runs.delete(id);
    progressOf.delete(id);
    if (listener) listener.receive(answer);
  }
  nextAhead();
}

/**
 * @param {Listener} listener who gets the answer
 * @param {string} module
 * @param {import("./inputs.js").Inputs} inputs
 * @param {Working} [working] shows the run's progress reports, if it sends any
 * @param {boolean} [phased] a sim answering in two parts sends its first part at once
 *   (sims/kit/phased.py); an answer kept on the page, or a run ahead's, comes whole
 */
export function run(listener, module, inputs, working, phased = false) {
  wanted = []; // the runs ahead of the inputs shown before are no longer ahead of anything
  const key = runKey(module, inputs);
  const payload = aheadOn() ? kept.take(key) : undefined;
  if (payload !== undefined) {
    mark(KEPT, module);
    // Answered as the worker answers: after the task that asked (widget.js expects that).
    queueMicrotask(() => deliver(listener, payload));
    return;
  }
  const waiting = awaited.get(key);
  if (waiting) { // the run ahead in flight is this one: its answer is this run's
    waiting.push(listener);
    return;
  }
  const id = nextRunId++;
  runs.set(id, listener);
  if (working) progressOf.set(id, working);
  sent.set(id, { key, module, at: performance.now() });
  current().postMessage({ type: "run", id, module, inputs, phased });
}

/**
 * Runs to make while the worker is idle, most likely next first (ahead.js): each is sent
 * once no sim's run is in flight, one at a time, so a change the reader makes meanwhile
 * waits for one run at most. A newer call, or any sim's run, replaces the list.
 * @param {string} module
 * @param {import("./inputs.js").Inputs[]} inputs
 */
export function ahead(module, inputs) {
  if (!aheadOn() || (tookMs.get(module) ?? Infinity) > AHEAD_UNDER_MS) return;
  wanted = inputs.map((values) => ({ module, inputs: values }));
  nextAhead();
}

function nextAhead() {
  if (aheadId !== null || runs.size > 0 || broken) return;
  for (let next = wanted.shift(); next; next = wanted.shift()) {
    const key = runKey(next.module, next.inputs);
    if (kept.has(key)) continue;
    aheadId = nextRunId++;
    awaited.set(key, []);
    sent.set(aheadId, { key, module: next.module, at: performance.now() });
    current().postMessage({ type: "run", id: aheadId, module: next.module, inputs: next.inputs });
    return;
  }
}

/**
 * A file's text read into a sim's text input by the sim (`read_file`), in the worker: the
 * file never leaves the reader's device. The sim's files come with it: a read may come
 * before the sim is loaded (a link carrying a pasted config is read as the page opens).
 * @param {string} module
 * @param {string[]} files the sims files it needs
 * @param {string} name the input
 * @param {string} text the file's text
 * @returns {Promise<ReadAnswer>}
 */
export function read(module, files, name, text) {
  if (broken) return Promise.resolve({ ok: false, input: name, message: broken });
  const id = nextRunId++;
  const answer = new Promise((resolve) => { reads.set(id, resolve); });
  current().postMessage({ type: "read", id, module, files, name, text });
  return /** @type {Promise<ReadAnswer>} */ (answer);
}

/**
 * Runs whose results nobody reads, so that V8 has optimised Python's hot paths before the
 * reader's first change (worker.js, warm).
 * @param {string} module
 * @param {import("./inputs.js").Inputs} inputs
 * @param {number} count
 */
export function warm(module, inputs, count) {
  current().postMessage({ type: "warm", module, inputs, runs: count });
}

// Runs in flight are lost with the old worker; every sim loads its module again and reruns
// if it must.
export function replace() {
  worker?.terminate();
  worker = null;
  runs.clear();
  kept.clear(); // a new worker loads the sims' files again: answers are made afresh
  sent.clear();
  awaited.clear();
  wanted = [];
  aheadId = null;
  for (const [id, resolve] of reads) {
    resolve({ ok: false, input: "", message: "the file was not read: the simulation was restarted; pick it again" });
    reads.delete(id);
  }
  broadcast((listener) => listener.restart());
}
