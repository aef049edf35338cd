// @ts-check
// Python's start in its worker (worker.js): every runtime file asked for at once as the
// worker starts, the wasm compiled while it downloads, the build's memory snapshot restored
// (sims already imported), and the normal start when there is none or it cannot be restored.
// Importing this module starts the downloads; `startPython` waits for them.

import { costlyLink, metered } from "./link.js";
import { download, inflateHeap, inflated, undoDelta } from "./unpack.js";

const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;
const WASM_URL = new URL("pyodide.asm.wasm", PYODIDE_URL).href; // what Pyodide asks for (runtime.py WASM)
export const HOME = "/home/pyodide/ridgepoint"; // on sys.path; holds the sims package


// How Python started: "snapshot" (restored, sims already imported) or "fresh" (with the
// reason the snapshot was not used), and when each step ended (ms since the worker
// started; `origin` is its performance.timeOrigin). Read by tests and the bench, handy in
// devtools.
/** @type {typeof ridgepoint.start} */
export const startInfo = {
  via: null, reason: null, snapshotModules: [], fromCache: [], marks: { origin: performance.timeOrigin },
};
const mark = (/** @type {string} */ step) => { startInfo.marks[step] = performance.now(); };

// The runtime's manifest (ridgepoint/browser/runtime.py stage_snapshot): the snapshot's file and heap
// size, the standard library's, the XORed length, the files the build gzipped with the hash
// their inflated copies are kept under (`unpacked`), Pyodide's lock without packages.
/**
 * @typedef {object} Manifest
 * @property {string | null} file @property {number} bytes the file's
 * @property {number} size the heap's, in bytes
 * @property {string[]} modules @property {number} xor
 * @property {string} stdlib @property {Record<string, string>} unpacked @property {object} lock
 */
const manifest = /** @type {Promise<Manifest>} */ (
  download(new URL("snapshot.json", PYODIDE_URL)).then((response) => response.json()));

// Whether this origin keeps any cache at all, asked as the worker starts, beside the
// manifest's download: a first visit's worker then does not open the cache storage for
// each file after the manifest has come (on this project's machine, under load, the first
// lookup held the runtime's downloads back by 100-190 ms).
const cached = typeof caches === "undefined" ? Promise.resolve(false)
  : caches.keys().then((names) => names.length > 0, () => false);

// A runtime file the build gzipped, as Python needs it. A returning reader's copy is read
// inflated straight from the service worker's cache (sw.js keeps it), under the key naming
// this build's bytes by their hash: a request through the service worker waits its turn on
// that worker's thread, 70-130 ms for the snapshot. Otherwise it is downloaded, and
// inflated here.
// A first visit (no cache at all) does not wait for the manifest: the wasm, whose name is
// fixed, is asked for as the worker starts, beside the manifest, not a round trip after it.
async function runtimeFile(/** @type {string} */ name, /** @type {string} */ type) {
  const hit = await cachedCopy(name);
  if (hit) {
    startInfo.fromCache.push(name);
    return inflated(hit, type);
  }
  return inflated(metered(await download(new URL(name, PYODIDE_URL))), type);
}

/**
 * The service worker's inflated copy of a runtime file, if this origin keeps one.
 * @param {string} name
 * @returns {Promise<Response | undefined>}
 */
async function cachedCopy(name) {
  if (!(await cached)) return undefined;
  const hash = (await manifest).unpacked?.[name];
  const url = new URL(name, PYODIDE_URL);
  return hash ? caches.match(`${url.href}?unpacked=${hash}`).catch(() => undefined) : undefined;
}

const wasmResponse = runtimeFile("pyodide.asm.wasm", "application/wasm");
// Pyodide's own requests: its wasm gets the response already being compiled (below), a
// gzipped file (the standard library) comes from runtimeFile, any other passes through. A
// relative URL is read against this script's own address: under the host-policy start the
// worker's location is a blob: URL (overrides/partials/javascripts/host-policy.html).
self.fetch = (resource, options) => {
  const url = new URL(resource instanceof Request ? resource.url : String(resource), import.meta.url);
  if (url.href === WASM_URL) return wasmResponse;
  if (url.pathname.endsWith(".gz")) {
    return runtimeFile(url.pathname.slice(url.pathname.lastIndexOf("/") + 1), "application/octet-stream");
  }
  return download(resource, options);
};

// Everything Python's start needs is asked for at once, as the worker starts: the wasm
// (compiled while it downloads), Pyodide's loader and Emscripten's module factory, and the
// snapshot as soon as the link has shown it is worth its bytes (costlyLink). Pyodide alone
// would take them one after another: the factory once its loader has run, the wasm's
// compilation once the snapshot is in memory.
export const wasmModule = compileWasm();
const loader = import("../pyodide/pyodide.mjs");
const factory = import("../pyodide/pyodide.asm.mjs");
const heap = manifest.then(async (known) => {
  if (!known.file) throw new Error("this site was built without a Python snapshot");
  const costly = await costlyLink({
    bytes: known.bytes, runtime: PYODIDE_URL, compiled: wasmModule,
    downloading: wasmResponse.then(() => !startInfo.fromCache.includes("pyodide.asm.wasm")),
  });
  if (costly && !(await cachedCopy(known.file))) {
    throw new Error(`${costly}: its download would take longer than the start it saves`);
  }
  return new Uint8Array(known.size);
});
const snapshot = snapshotBytes();
// Whether Python will start without the snapshot, known before it starts: the worker then
// fetches its sim's files while the runtime downloads (worker.js).
export const startsFresh = heap.then(() => false, () => true);
for (const pending of [heap, snapshot]) pending.catch(() => {}); // handled in start(): not unhandled (see the end)
for (const [step, promise] of /** @type {const} */ ([["wasm compiled", wasmModule], ["snapshot", snapshot]])) {
  promise.then(() => mark(step), () => {});
}

// The snapshot while one is being restored: its heap's start is XORed with the wasm's data
// segments until instantiation (below) undoes that.
/** @type {typeof snapshot | null} */
let restoring = null;
const WASM_PAGE = 65536; // bytes: WebAssembly memory grows by whole pages

// Pyodide instantiates its wasm with WebAssembly.instantiateStreaming; this worker runs
// nothing else, so that call is given the module compiled above. The memory then holds
// the data segments only: the moment to undo the snapshot's XOR, before Pyodide copies it
// in, once the snapshot has downloaded. A snapshot that failed is left to Pyodide to refuse
// (snapshotBytes wiped its magic number), so that loadPyodide rejects and start() goes on.
WebAssembly.instantiateStreaming = /** @type {typeof WebAssembly.instantiateStreaming} */ (async (_response, imports) => {
  const module = await wasmModule;
  const instance = await WebAssembly.instantiate(module, imports);
  const pending = restoring;
  restoring = null;
  const loaded = pending && await pending.catch(() => null);
  if (loaded) {
    const memory = /** @type {WebAssembly.Memory} */ (instance.exports.memory);
    // Pyodide copies the snapshot into the memory the module defines, which starts at the
    // module's own minimum: a heap larger than that (the sims and the catalogue grow it) has
    // to find the room first, or the copy fails and Python starts without the snapshot.
    const short = loaded.bytes.length - memory.buffer.byteLength;
    if (short > 0) memory.grow(Math.ceil(short / WASM_PAGE));
    undoDelta(loaded.bytes, memory.buffer, loaded.xor);
  }
  return { module, instance };
});

// Emscripten wraps each JavaScript function Python's wasm calls by pointer in a module of
// its own, compiled on the spot: some 260 of them as Python starts, 40-60 ms. Their bytes
// differ only by signature, so each distinct one is compiled once here and reused (each
// wrapper is still instantiated with its own function). Larger modules pass through.
const RealModule = WebAssembly.Module;
/** @type {Map<string, WebAssembly.Module>} */
const wrappers = new Map();
const WRAPPER_BYTES = 256;
WebAssembly.Module = /** @type {typeof WebAssembly.Module} */ (/** @type {unknown} */ (
  function Module(/** @type {BufferSource} */ bytes) {
    const view = ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      : new Uint8Array(bytes);
    if (view.length > WRAPPER_BYTES) return new RealModule(bytes);
    const key = String.fromCharCode(...view);
    let module = wrappers.get(key);
    if (!module) wrappers.set(key, module = new RealModule(bytes));
    return module;
  }));
Object.assign(WebAssembly.Module, {
  prototype: RealModule.prototype, exports: RealModule.exports, imports: RealModule.imports,
  customSections: RealModule.customSections,
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

// The build's memory snapshot (ridgepoint/browser/snapshot.py): the manifest names the file, which
// is gzip(sparse heap), and the heap's size. Inflating checks the gzip trailer (CRC-32,
// length), so a damaged download is refused; Pyodide then checks the magic number and its
// own build id. A failure wipes the magic number of the heap Pyodide already holds.
async function snapshotBytes() {
  const [known, bytes] = await Promise.all([manifest, heap]);
  try {
    const response = await runtimeFile(/** @type {string} */ (known.file), "application/octet-stream");
    await inflateHeap(/** @type {ReadableStream<Uint8Array>} */ (response.body), bytes);
  } catch (error) {
    bytes.fill(0, 0, 4);
    throw error;
  }
  return { bytes, modules: known.modules, xor: known.xor };
}

// Pyodide sizes Python's memory by the snapshot before it creates its module (loadPyodide
// awaits `_loadSnapshot` for the length), and creating the module is some 80 ms of
// JavaScript. So it is handed the heap's array at once, zeroed and sized by the manifest,
// and creates the module while the snapshot downloads into that array; instantiation
// (above) waits for the download to end.
async function restore() {
  const { loadPyodide } = await loader;
  restoring = snapshot;
  const pyodide = await loadPyodide({ ...(await pyodideOptions()), _loadSnapshot: heap });
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

/**
 * Python, started; `announce` is told when the start begins (the page shows it).
 * @param {() => void} announce
 */
export async function startPython(announce) {
  announce();
  let pyodide;
  try {
    pyodide = await restore();
    startInfo.via = "snapshot";
  } catch (error) {
    // No snapshot, a failed download or a snapshot this Pyodide refuses: start normally.
    // A failed snapshot is the reason, not Pyodide's refusal of its wiped heap.
    startInfo.reason = lastLine(await snapshot.then(() => error, (failed) => failed));
    restoring = null;
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

export function lastLine(/** @type {any} */ error) {
  // A PythonError's message is the whole traceback; the reader needs its last line.
  const lines = String(error && error.message ? error.message : error).trim().split("\n");
  return lines[lines.length - 1];
}
