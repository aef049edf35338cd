// @ts-check
// Ridgepoint's Python worker: Pyodide in a module worker, one per page, shared by its sims.
//
// Everything comes from this site: Pyodide from assets/pyodide/ (indexURL), the sims'
// source from assets/sims/, both found relative to this file, so the site works at any
// depth and under any base path. No package is loaded: the sims use the standard library.
// Python starts from the build's memory snapshot when there is one (sims imported already),
// and the normal way when there is none or it cannot be restored.
//
// Messages in:   {type: "load", module, files}        fetch + import a sim (once)
//                {type: "run", id, module, inputs}    run it
//                {type: "warm", module, inputs, runs} run it `runs` times, answering nothing
// Messages out:  {type: "progress", step, of, text}   while Python starts
//                {type: "loaded", module} / {type: "failed", module, message}
//                {type: "result", id, payload}        payload: JSON text from sims._runner.run
//                {type: "fatal", message}             Python could not start at all

const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;
const WASM_URL = new URL("pyodide.asm.wasm", PYODIDE_URL).href;
const SIMS_URL = new URL("../sims/", import.meta.url);
const HOME = "/home/pyodide/ridgepoint"; // on sys.path; holds the sims package
const STEPS = 3; // starting Python, loading the sim, first run (the page counts the last)
const SNAPSHOT_MANIFEST = "snapshot.json";

// A failed download names its file: Pyodide's own message ("Failed to fetch") does not.
/** @param {RequestInfo | URL} resource @param {RequestInit} [options] */
async function download(resource, options) {
  const url = new URL(resource instanceof Request ? resource.url : resource, self.location.href);
  const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  let response;
  try {
    response = await realFetch(resource, options);
  } catch (error) {
    throw new Error(`could not download ${name} (${/** @type {Error} */ (error).message})`);
  }
  if (!response.ok) throw new Error(`could not download ${name} (HTTP ${response.status})`);
  return response;
}
const realFetch = self.fetch.bind(self);
const wasmResponse = download(WASM_URL);
// Pyodide's own request for its wasm gets the response already being compiled (below).
self.fetch = (resource, options) => {
  const url = resource instanceof Request ? resource.url : String(resource);
  return new URL(url, self.location.href).href === WASM_URL ? wasmResponse : download(resource, options);
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

// Pyodide instantiates its wasm with WebAssembly.instantiateStreaming; this worker runs
// nothing else, so that call is given the module compiled above.
WebAssembly.instantiateStreaming = /** @type {typeof WebAssembly.instantiateStreaming} */ (async (_response, imports) => {
  const module = await wasmModule;
  return { module, instance: await WebAssembly.instantiate(module, imports) };
});

const PYODIDE_OPTIONS = {
  indexURL: PYODIDE_URL, packages: [], stdout: () => {}, stderr: () => {},
  createPyodideModule: async (/** @type {object} */ settings) => (await factory).default(settings),
};

// The page may start this worker before its widget listens (ridgepoint/sim_embed/widget.py's STARTER): nothing
// is said until the widget's first message, so nothing is lost. Messages keep their order.
/** @type {(value?: unknown) => void} */
let heard;
const listening = new Promise((resolve) => { heard = resolve; });
function post(/** @type {object} */ message) {
  listening.then(() => self.postMessage(message));
}

const files = new Map(); // sims file -> Promise, so shared modules are fetched once
const modules = new Map(); // module -> Promise of its import

const python = start();
self.ridgepoint = { python, start: startInfo, warmRuns: 0 }; // warmRuns: see warm()

function progress(/** @type {number} */ step, /** @type {string} */ text) {
  post({ type: "progress", step, of: STEPS, text });
}

// The build's memory snapshot (ridgepoint/snapshot.py): a manifest names the file, which
// is gzip(sparse heap). Inflating checks the gzip trailer (CRC-32, length), so a damaged
// download is refused; Pyodide then checks the magic number and its own build id.
async function snapshotBytes() {
  const manifest = await (await fetch(new URL(SNAPSHOT_MANIFEST, PYODIDE_URL))).json();
  if (!manifest.file) throw new Error("this site was built without a Python snapshot");
  const response = await fetch(new URL(manifest.file, PYODIDE_URL));
  return { bytes: await inflateHeap(/** @type {ReadableStream<BufferSource>} */ (response.body)), modules: manifest.modules };
}

// The heap back from its sparse form, page by page as it inflates (no copy of the whole
// sparse form is made): magic "RPS1", u32 page size, heap size, page count, the non-zero
// pages' indexes, then their bytes (little-endian; see ridgepoint/snapshot.py).
async function inflateHeap(/** @type {ReadableStream<BufferSource>} */ body) {
  const reader = body.pipeThrough(new DecompressionStream("gzip")).getReader();
  let head = new Uint8Array(0); // the header, while it is incomplete
  let heap = /** @type {Uint8Array | null} */ (null);
  let indexes = new Uint32Array(0), page = 0, written = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    let chunk = read.value;
    if (heap === null) {
      head = joined(head, chunk);
      const view = new DataView(head.buffer);
      if (head.length >= 4 && view.getUint32(0, true) !== 0x31535052) {
        throw new Error("the Python snapshot is not in the expected format");
      }
      if (head.length < 16) continue;
      const [size, count] = [8, 12].map((at) => view.getUint32(at, true));
      const start = 16 + 4 * count;
      if (head.length < start) continue;
      page = view.getUint32(4, true);
      indexes = new Uint32Array(head.buffer.slice(16, start));
      heap = new Uint8Array(size);
      chunk = head.subarray(start);
    }
    for (let offset = 0; offset < chunk.length;) {
      const nth = Math.floor(written / page);
      const within = written - nth * page;
      const target = indexes[nth] * page + within;
      const length = Math.min(page - within, chunk.length - offset, heap.length - target);
      if (!(length > 0)) throw new Error("the Python snapshot is damaged");
      heap.set(chunk.subarray(offset, offset + length), target);
      offset += length;
      written += length;
    }
  }
  const pages = indexes.length;
  const expected = pages && heap && (pages - 1) * page + Math.min(page, heap.length - indexes[pages - 1] * page);
  if (heap === null || written !== expected) throw new Error("the Python snapshot is damaged");
  return heap;
}

function joined(/** @type {Uint8Array} */ first, /** @type {Uint8Array} */ second) {
  const both = new Uint8Array(first.length + second.length);
  both.set(first);
  both.set(second, first.length);
  return both;
}

async function restore() {
  const { loadPyodide } = await loader;
  const bytes = snapshot.then((loaded) => loaded.bytes);
  bytes.catch(() => {}); // Pyodide awaits it later: a quick failure must not count as unhandled
  const pyodide = await loadPyodide({ ...PYODIDE_OPTIONS, _loadSnapshot: bytes });
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
    const { loadPyodide } = await loader;
    pyodide = await loadPyodide(PYODIDE_OPTIONS);
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
  heard();
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
