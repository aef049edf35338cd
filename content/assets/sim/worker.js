// Ridgepoint's Python worker: Pyodide in a module worker, one per page, shared by its sims.
//
// Everything comes from this site: Pyodide from assets/pyodide/ (indexURL), the sims'
// source from assets/sims/, both found relative to this file, so the site works at any
// depth and under any base path. No package is loaded: the sims use the standard library.
//
// Messages in:   {type: "load", module, files}        fetch + import a sim (once)
//                {type: "run", id, module, inputs}    run it
// Messages out:  {type: "progress", step, of, text}   while Python starts
//                {type: "loaded", module} / {type: "failed", module, message}
//                {type: "result", id, payload}        payload: JSON text from sims._runner.run
//                {type: "fatal", message}             Python could not start at all

import { loadPyodide } from "../pyodide/pyodide.mjs";

const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;
const SIMS_URL = new URL("../sims/", import.meta.url);
const HOME = "/home/pyodide/ridgepoint"; // on sys.path; holds the sims package
const STEPS = 3; // starting Python, loading the sim, first run (the page counts the last)

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

const python = start();

function progress(step, text) {
  self.postMessage({ type: "progress", step, of: STEPS, text });
}

async function start() {
  progress(1, "Starting Python in your browser (a one-time download of about 6 MB)");
  const pyodide = await loadPyodide({
    indexURL: PYODIDE_URL,
    packages: [],
    stdout: () => {},
    stderr: () => {},
  });
  pyodide.FS.mkdirTree(`${HOME}/sims`);
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(HOME)})`);
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
      await Promise.all(needed.map((file) => fetchFile(pyodide, file)));
      pyodide.runPython("import importlib; importlib.invalidate_caches()");
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
