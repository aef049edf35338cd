// @ts-check
// Ridgepoint's Python worker: Pyodide in a module worker, one per page, shared by its sims.
//
// Everything comes from this site: Pyodide from assets/pyodide/ (indexURL), the sims'
// source from assets/sims/, both found relative to this file, so the site works at any
// depth and under any base path. No package is loaded: the sims use the standard library,
// trimmed to what they load. How Python starts (from the build's memory snapshot when there
// is one, sims imported already) is pyodide_start.js's; this module answers the page.
//
// Messages in:   {type: "load", module, files}        fetch + import a sim (once)
//                {type: "run", id, module, inputs, phased}  run it (phased: runner.start)
//                {type: "read", id, module, files, name, text}  a file's text into a text input
//                {type: "warm", module, inputs, runs} run it `runs` times, answering nothing
// Messages out:  {type: "progress", step, of, text}   while Python starts
//                {type: "loaded", module} / {type: "failed", module, message}
//                {type: "working", id, done, total, text}  a long run's progress (sims.kit.progress)
//                {type: "result", id, payload, more}  payload: JSON text from sims.kit.runner.run
//                                                     (or .start, for a run sent `phased`;
//                                                     `more`: .finish's whole answer follows)
//                {type: "read", id, payload}          payload: JSON text from sims.kit.runner.read
//                {type: "fatal", message}             Python could not start at all

// unpack.js and link.js are pyodide_start.js's imports, named here too so that the worker
// fetches all three at once rather than one after the other (each level of a worker's
// imports is a round trip once the level before has been parsed).
import "./link.js";
import "./unpack.js";
import { HOME, lastLine, startInfo, startPython, startsFresh, wasmModule } from "./pyodide_start.js";

const SIMS_URL = new URL("../sims/", import.meta.url);
const STEPS = 3; // starting Python, loading the sim, first run (the page counts the last)

function post(/** @type {object} */ message) {
  self.postMessage(message);
}

const texts = new Map(); // sims file -> Promise of its text, so shared modules are fetched once
const files = new Map(); // sims file -> Promise of its writing into Python's file system
const modules = new Map(); // module -> Promise of its import

const python = startPython(
  () => progress(1, "Starting Python in your browser (a one-time download of several MB)"));
self.ridgepoint = { python, start: startInfo, warmRuns: 0 }; // warmRuns: see warm()

function progress(/** @type {number} */ step, /** @type {string} */ text) {
  post({ type: "progress", step, of: STEPS, text });
}

function fileText(/** @type {string} */ file) {
  if (!texts.has(file)) {
    const text = fetch(new URL(file, SIMS_URL)).then((response) => response.text());
    text.catch(() => {}); // fetched ahead: a failure is met by writeFile, which awaits it
    texts.set(file, text);
  }
  return texts.get(file);
}

async function writeFile(/** @type {Awaited<typeof python>} */ pyodide, /** @type {string} */ file) {
  if (!files.has(file)) {
    files.set(file, (async () => {
      const text = await fileText(file);
      const path = `${HOME}/sims/${file}`;
      pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      pyodide.FS.writeFile(path, text);
    })());
  }
  return files.get(file);
}

function loadModule(/** @type {string} */ module, /** @type {string[]} files it imports */ needed) {
  if (!modules.has(module)) {
    modules.set(module, (async () => {
      // Without the snapshot, the sim's files come while the runtime downloads, not after:
      // on a slow link they are some thirty round trips, six at a time.
      if (await startsFresh) needed.forEach(fileText);
      const pyodide = await python;
      progress(2, "Loading the simulation");
      // A restored snapshot has already imported its sims: nothing to fetch for those.
      const restored = ["sims.kit.runner", `sims.${module}`];
      if (!restored.every((name) => startInfo.snapshotModules.includes(name))) {
        await Promise.all(needed.map((file) => writeFile(pyodide, file)));
        pyodide.runPython("import importlib; importlib.invalidate_caches()");
      }
      const runner = pyodide.pyimport("sims.kit.runner");
      runner.load(module); // raises (and so rejects) if the sim cannot be imported
      runner.listen(working);
      return runner;
    })());
  }
  return modules.get(module);
}

let running = 0; // the id of the run under way: its progress reports go to its sim

/** A long run's report (sims.kit.progress), posted while the run goes on. */
function working(/** @type {number} */ done, /** @type {number} */ total, /** @type {string} */ text) {
  post({ type: "working", id: running, done, total, text });
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "load") {
    try {
      await loadModule(message.module, message.files);
      post({ type: "loaded", module: message.module });
    } catch (error) {
      post({ type: "failed", module: message.module, message: lastLine(error) });
    }
  } else if (message.type === "run") {
    let payload;
    let runner = null;
    try {
      runner = await loadModule(message.module, []);
      running = message.id;
      const inputs = JSON.stringify(message.inputs);
      payload = message.phased ? runner.start(message.module, inputs) : runner.run(message.module, inputs);
      startInfo.marks["first run"] ??= performance.now();
    } catch (error) {
      payload = JSON.stringify({ ok: false, kind: "sim", message: lastLine(error) });
    }
    // A run answered in two parts: its first part goes to the page at once, and the rest
    // is computed while the page draws it.
    const more = Boolean(message.phased && runner?.more());
    post({ type: "result", id: message.id, payload, more });
    if (more) {
      try {
        payload = runner.finish();
      } catch (error) {
        payload = JSON.stringify({ ok: false, kind: "sim", message: lastLine(error) });
      }
      post({ type: "result", id: message.id, payload });
    }
  } else if (message.type === "read") {
    let payload;
    try {
      const runner = await loadModule(message.module, message.files ?? []);
      payload = runner.read(message.module, message.name, message.text);
    } catch (error) {
      payload = JSON.stringify({ ok: false, input: message.name, message: lastLine(error) });
    }
    post({ type: "read", id: message.id, payload });
  } else if (message.type === "warm") {
    warm(message.module, message.inputs, message.runs).catch(() => {}); // only a head start
  }
};

// A sim's first runs in a new worker are two to four times slower than its later ones: V8
// compiles the hot parts of Python's wasm (the interpreter loop above all) to optimised code
// only once they have run for a while. The page asks for a few runs whose results nobody
// reads when the reader reaches for the controls, so that the reader's first changes are
// not the slow ones. Each run is a task of its own: a real run that arrives meanwhile waits
// for one of these at most.
async function warm(/** @type {string} */ module, /** @type {object} */ inputs, /** @type {number} */ runs) {
  const runner = await loadModule(module, []);
  const text = JSON.stringify(inputs);
  for (let done = 0; done < runs; done++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    runner.run(module, text);
    self.ridgepoint.warmRuns++;
  }
}

function fatal(/** @type {unknown} */ error) {
  post({ type: "fatal", message: lastLine(error) });
}

python.catch(fatal);
// Without its wasm Python cannot start, and Pyodide would wait forever: say so at once.
wasmModule.catch(fatal);

// Pyodide does not always reject when a runtime file fails: it may log a warning and never
// settle, leaving only an unhandled rejection behind (a loader file that failed to
// download). Any such rejection here means the runtime is broken: say so, do not wait.
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  fatal(event.reason);
});
