// @ts-check
// Ridgepoint's Python worker: Pyodide in a module worker, one per page, shared by its sims.
//
// Everything comes from this site: Pyodide from assets/pyodide/ (indexURL), the sims'
// source from assets/sims/, both found relative to this file, so the site works at any
// depth and under any base path. No package is loaded: the sims use the standard library,
// trimmed to what they load. Python starts from the build's memory snapshot when there is
// one (sims imported already), and the normal way when there is none or it cannot be
// restored. The wasm, the standard library and the snapshot arrive gzipped (unpack.js).
//
// Messages in:   {type: "load", module, files}        fetch + import a sim (once)
//                {type: "run", id, module, inputs}    run it
//                {type: "warm", module, inputs, runs} run it `runs` times, answering nothing
// Messages out:  {type: "progress", step, of, text}   while Python starts
//                {type: "loaded", module} / {type: "failed", module, message}
//                {type: "result", id, payload}        payload: JSON text from sims._runner.run
//                {type: "fatal", message}             Python could not start at all

import { download, inflateHeap, inflated, undoDelta } from "./unpack.js";

const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;
const WASM_URL = new URL("pyodide.asm.wasm", PYODIDE_URL).href; // what Pyodide asks for
const SIMS_URL = new URL("../sims/", import.meta.url);
const HOME = "/home/pyodide/ridgepoint"; // on sys.path; holds the sims package
const STEPS = 3; // starting Python, loading the sim, first run (the page counts the last)

// The runtime's manifest (ridgepoint/runtime.py stage_snapshot): the snapshot's file, the
// standard library's and the wasm's, the XORed length, Pyodide's lock without packages.
/**
 * @typedef {object} Manifest
 * @property {string | null} file @property {string[]} modules @property {number} xor
 * @property {string} stdlib @property {string} wasm @property {object} lock
 */
const manifest = /** @type {Promise<Manifest>} */ (
  download(new URL("snapshot.json", PYODIDE_URL)).then((response) => response.json()));
const wasmResponse = manifest.then(async (known) =>
  inflated(await download(new URL(known.wasm, PYODIDE_URL)), "application/wasm"));
// Pyodide's own requests: its wasm gets the response already being compiled (below), a
// gzipped file (the standard library) is inflated, any other passes through. A relative URL
// is read against this script's own address: under the host-policy start the worker's
// location is a blob: URL (overrides/partials/javascripts/host-policy.html).
self.fetch = (resource, options) => {
  const url = new URL(resource instanceof Request ? resource.url : String(resource), import.meta.url);
  if (url.href === WASM_URL) return wasmResponse;
  if (url.pathname.endsWith(".gz")) {
    return download(resource, options).then((response) => inflated(response, "application/octet-stream"));
  }
  return download(resource, options);
};

// How Python started: "snapshot" (restored, sims already imported) or "fresh" (with the
// reason the snapshot was not used), and when each step ended (ms since the worker
// started; `origin` is its performance.timeOrigin). Read by tests and the bench, handy in
// devtools.
/** @type {typeof ridgepoint.start} */
const startInfo = {
  via: null, reason: null, snapshotModules: [], marks: { origin: performance.timeOrigin },
};
const mark = (/** @type {string} */ step) => { startInfo.marks[step] = performance.now(); };

// Everything Python's start needs is asked for at once, as the worker starts: the wasm
// (compiled while it downloads), Pyodide's loader, Emscripten's module factory and the
// snapshot. Pyodide alone would take them one after another: the factory once its loader
// has run, the wasm's compilation once the snapshot is in memory.
const wasmModule = compileWasm();
const loader = import("../pyodide/pyodide.mjs");
const factory = import("../pyodide/pyodide.asm.mjs");
const snapshot = snapshotBytes();
snapshot.catch(() => {}); // handled in restore(): not an unhandled rejection (see the end)
for (const [step, promise] of /** @type {const} */ ([["wasm compiled", wasmModule], ["snapshot", snapshot]])) {
  promise.then(() => mark(step), () => {});
}

// A snapshot being restored: its heap's start still XORed with the wasm's data segments.
/** @type {{bytes: Uint8Array, length: number} | null} */
let xored = null;

// Pyodide instantiates its wasm with WebAssembly.instantiateStreaming; this worker runs
// nothing else, so that call is given the module compiled above. The memory then holds
// the data segments only: the moment to undo the snapshot's XOR, before Pyodide copies it in.
WebAssembly.instantiateStreaming = /** @type {typeof WebAssembly.instantiateStreaming} */ (async (_response, imports) => {
  const module = await wasmModule;
  const instance = await WebAssembly.instantiate(module, imports);
  if (xored) {
    undoDelta(xored.bytes, /** @type {WebAssembly.Memory} */ (instance.exports.memory).buffer, xored.length);
    xored = null;
  }
  return { module, instance };
});

/** @returns {Promise<object>} loadPyodide's options: this site's files, no packages */
async function pyodideOptions() {
  const known = await manifest;
  return {
    indexURL: PYODIDE_URL, packages: [], stdout: () => {}, stderr: () => {},
    stdLibURL: new URL(known.stdlib, PYODIDE_URL).href, lockFileContents: known.lock,
    createPyodideModule: async (/** @type {object} */ settings) => (await factory).default(settings),
  };
}

function post(/** @type {object} */ message) {
  self.postMessage(message);
}

const files = new Map(); // sims file -> Promise, so shared modules are fetched once
const modules = new Map(); // module -> Promise of its import

const python = start();
self.ridgepoint = { python, start: startInfo, warmRuns: 0 }; // warmRuns: see warm()

function progress(/** @type {number} */ step, /** @type {string} */ text) {
  post({ type: "progress", step, of: STEPS, text });
}

// The build's memory snapshot (ridgepoint/snapshot.py): the manifest names the file, which
// is gzip(sparse heap). Inflating checks the gzip trailer (CRC-32, length), so a damaged
// download is refused; Pyodide then checks the magic number and its own build id.
async function snapshotBytes() {
  const known = await manifest;
  if (!known.file) throw new Error("this site was built without a Python snapshot");
  const response = await inflated(await download(new URL(known.file, PYODIDE_URL)), "application/octet-stream");
  const body = /** @type {ReadableStream<Uint8Array>} */ (response.body);
  return { bytes: await inflateHeap(body), modules: known.modules, xor: known.xor };
}

async function restore() {
  const { loadPyodide } = await loader;
  const bytes = snapshot.then((loaded) => {
    xored = { bytes: loaded.bytes, length: loaded.xor };
    return loaded.bytes;
  });
  bytes.catch(() => {}); // Pyodide awaits it later: a quick failure must not count as unhandled
  const pyodide = await loadPyodide({ ...(await pyodideOptions()), _loadSnapshot: bytes });
  // The restored heap holds the random state saved at build time: every visit would draw
  // the same numbers. Reseed from the browser's entropy (os.urandom).
  pyodide.runPython("import random; random.seed()");
  startInfo.snapshotModules = (await snapshot).modules;
  return pyodide;
}

// Under a Content Security Policy without 'wasm-unsafe-eval' nothing compiles, and Pyodide
// would never settle (it logs a failed instantiation and waits): the reader is told why.
function compileWasm() {
  try {
    new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  } catch {
    return Promise.reject(
      new Error("this site's security policy does not allow WebAssembly, which Python needs"));
  }
  return WebAssembly.compileStreaming(wasmResponse);
}

async function start() {
  progress(1, "Starting Python in your browser (a one-time download of several MB)");
  let pyodide;
  try {
    pyodide = await restore();
    startInfo.via = "snapshot";
  } catch (error) {
    // No snapshot, a failed download or a snapshot this Pyodide refuses: start normally.
    startInfo.reason = lastLine(error);
    xored = null;
    const { loadPyodide } = await loader;
    pyodide = await loadPyodide(await pyodideOptions());
    startInfo.via = "fresh";
  }
  pyodide.FS.mkdirTree(`${HOME}/sims`);
  pyodide.runPython(`import sys
if ${JSON.stringify(HOME)} not in sys.path: sys.path.insert(0, ${JSON.stringify(HOME)})`);
  mark("python");
  return pyodide;
}

async function fetchFile(/** @type {Awaited<typeof python>} */ pyodide, /** @type {string} */ file) {
  if (!files.has(file)) {
    files.set(file, (async () => {
      const response = await fetch(new URL(file, SIMS_URL));
      const path = `${HOME}/sims/${file}`;
      pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      pyodide.FS.writeFile(path, await response.text());
    })());
  }
  return files.get(file);
}

function loadModule(/** @type {string} */ module, /** @type {string[]} files it imports */ needed) {
  if (!modules.has(module)) {
    modules.set(module, (async () => {
      const pyodide = await python;
      progress(2, "Loading the simulation");
      // A restored snapshot has already imported its sims: nothing to fetch for those.
      const restored = ["sims._runner", `sims.${module}`];
      if (!restored.every((name) => startInfo.snapshotModules.includes(name))) {
        await Promise.all(needed.map((file) => fetchFile(pyodide, file)));
        pyodide.runPython("import importlib; importlib.invalidate_caches()");
      }
      const runner = pyodide.pyimport("sims._runner");
      runner.load(module); // raises (and so rejects) if the sim cannot be imported
      return runner.run;
    })());
  }
  return modules.get(module);
}

function lastLine(/** @type {any} */ error) {
  // A PythonError's message is the whole traceback; the reader needs its last line.
  const lines = String(error && error.message ? error.message : error).trim().split("\n");
  return lines[lines.length - 1];
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
    try {
      const run = await loadModule(message.module, []);
      payload = run(message.module, JSON.stringify(message.inputs));
      startInfo.marks["first run"] ??= performance.now();
    } catch (error) {
      payload = JSON.stringify({ ok: false, kind: "sim", message: lastLine(error) });
    }
    post({ type: "result", id: message.id, payload });
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
  const run = await loadModule(module, []);
  const text = JSON.stringify(inputs);
  for (let done = 0; done < runs; done++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    run(module, text);
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
