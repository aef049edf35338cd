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
// Messages out:  {type: "progress", step, of, text}   while Python starts
//                {type: "loaded", module} / {type: "failed", module, message}
//                {type: "result", id, payload}        payload: JSON text from sims._runner.run
//                {type: "fatal", message}             Python could not start at all

// Imported, not statically: the snapshot's download starts while Pyodide's loader arrives.
const pyodideModule = import("../pyodide/pyodide.mjs");

const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;
const SIMS_URL = new URL("../sims/", import.meta.url);
const HOME = "/home/pyodide/ridgepoint"; // on sys.path; holds the sims package
const STEPS = 3; // starting Python, loading the sim, first run (the page counts the last)
const SNAPSHOT_MANIFEST = "snapshot.json";
const PYODIDE_OPTIONS = {
  indexURL: PYODIDE_URL, packages: [], stdout: () => {}, stderr: () => {},
};

// A failed download names its file: Pyodide's own message ("Failed to fetch") does not.
const realFetch = self.fetch.bind(self);
self.fetch = async (resource, options) => {
  const url = new URL(resource instanceof Request ? resource.url : resource, self.location.href);
  const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  let response;
  try {
    response = await realFetch(resource, options);
  } catch (error) {
    throw new Error(`could not download ${name} (${error.message})`);
  }
  if (!response.ok) throw new Error(`could not download ${name} (HTTP ${response.status})`);
  return response;
};

const files = new Map(); // sims file -> Promise, so shared modules are fetched once
const modules = new Map(); // module -> Promise of its import

// How Python started: "snapshot" (restored, sims already imported) or "fresh" (with the
// reason the snapshot was not used). Read by tests and the bench, handy in devtools.
const startInfo = { via: null, reason: null, snapshotModules: [] };
const python = start();
self.ridgepoint = { python, start: startInfo };

function progress(step, text) {
  self.postMessage({ type: "progress", step, of: STEPS, text });
}

// The build's memory snapshot (ridgepoint/snapshot.py): a manifest names the file, which
// is gzip(sparse heap). Inflating checks the gzip trailer (CRC-32, length), so a damaged
// download is refused; Pyodide then checks the magic number and its own build id.
async function snapshotBytes() {
  const manifest = await (await fetch(new URL(SNAPSHOT_MANIFEST, PYODIDE_URL))).json();
  if (!manifest.file) throw new Error("this site was built without a Python snapshot");
  const response = await fetch(new URL(manifest.file, PYODIDE_URL));
  const inflated = response.body.pipeThrough(new DecompressionStream("gzip"));
  const packed = await new Response(inflated).arrayBuffer();
  return { bytes: expand(packed), modules: manifest.modules };
}

// The heap back from its sparse form: magic "RPS1", u32 page size, heap size, page count,
// the non-zero pages' indexes, then their bytes (little-endian; see ridgepoint/snapshot.py).
function expand(packed) {
  const head = new DataView(packed);
  if (packed.byteLength < 16 || head.getUint32(0, true) !== 0x31535052) {
    throw new Error("the Python snapshot is not in the expected format");
  }
  const [page, size, count] = [4, 8, 12].map((at) => head.getUint32(at, true));
  const indexes = new Uint32Array(packed, 16, count);
  const heap = new Uint8Array(size);
  let offset = 16 + 4 * count;
  for (const index of indexes) {
    const length = Math.min(page, size - index * page);
    heap.set(new Uint8Array(packed, offset, length), index * page);
    offset += length;
  }
  if (offset !== packed.byteLength) throw new Error("the Python snapshot is damaged");
  return heap;
}

async function restore() {
  const snapshot = snapshotBytes();
  snapshot.catch(() => {}); // handled below: not an unhandled rejection (see the end)
  const bytes = snapshot.then((loaded) => loaded.bytes);
  bytes.catch(() => {}); // Pyodide awaits it later: a quick failure must not count as unhandled
  const { loadPyodide } = await pyodideModule;
  const pyodide = await loadPyodide({ ...PYODIDE_OPTIONS, _loadSnapshot: bytes });
  // The restored heap holds the random state saved at build time: every visit would draw
  // the same numbers. Reseed from the browser's entropy (os.urandom).
  pyodide.runPython("import random; random.seed()");
  startInfo.snapshotModules = (await snapshot).modules;
  return pyodide;
}

// Under a Content Security Policy without 'wasm-unsafe-eval' Pyodide never settles (it logs
// a warning and waits): compile an empty module first, so the reader is told why instead.
function checkWasmAllowed() {
  try {
    new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  } catch {
    throw new Error("this site's security policy does not allow WebAssembly, which Python needs");
  }
}

async function start() {
  progress(1, "Starting Python in your browser (a one-time download of several MB)");
  checkWasmAllowed();
  let pyodide;
  try {
    pyodide = await restore();
    startInfo.via = "snapshot";
  } catch (error) {
    // No snapshot, a failed download or a snapshot this Pyodide refuses: start normally.
    startInfo.reason = lastLine(error);
    const { loadPyodide } = await pyodideModule;
    pyodide = await loadPyodide(PYODIDE_OPTIONS);
    startInfo.via = "fresh";
  }
  pyodide.FS.mkdirTree(`${HOME}/sims`);
  pyodide.runPython(`import sys
if ${JSON.stringify(HOME)} not in sys.path: sys.path.insert(0, ${JSON.stringify(HOME)})`);
  return pyodide;
}

async function fetchFile(pyodide, file) {
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

function loadModule(module, needed) {
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

function lastLine(error) {
  // A PythonError's message is the whole traceback; the reader needs its last line.
  const lines = String(error && error.message ? error.message : error).trim().split("\n");
  return lines[lines.length - 1];
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "load") {
    try {
      await loadModule(message.module, message.files);
      self.postMessage({ type: "loaded", module: message.module });
    } catch (error) {
      self.postMessage({ type: "failed", module: message.module, message: lastLine(error) });
    }
  } else if (message.type === "run") {
    let payload;
    try {
      const run = await loadModule(message.module, []);
      payload = run(message.module, JSON.stringify(message.inputs));
    } catch (error) {
      payload = JSON.stringify({ ok: false, kind: "sim", message: lastLine(error) });
    }
    self.postMessage({ type: "result", id: message.id, payload });
  }
};

python.catch((error) => {
  self.postMessage({ type: "fatal", message: lastLine(error) });
});

// Pyodide does not always reject when a runtime file fails: a failed wasm fetch is logged
// as a warning and loadPyodide never settles, leaving only an unhandled rejection behind.
// Any such rejection here means the runtime is broken, so say so rather than wait forever.
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  self.postMessage({ type: "fatal", message: lastLine(event.reason) });
});
