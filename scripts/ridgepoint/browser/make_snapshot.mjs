// Makes the Pyodide memory snapshot the browser worker restores instead of starting Python,
// and lists the standard library it needs.
//
//   node make_snapshot.mjs list <sims dir> <home>
//       Starts the pinned Pyodide with its whole standard library, does what the worker
//       does (invalidates import caches), imports every sim and every standard module a
//       sims file names, runs each sim at its defaults and on one refused input, and prints one JSON line: {"members": [...]}, the files of
//       python_stdlib.zip that Python has loaded by then (ridgepoint/browser/stdlib.py keeps those).
//   node make_snapshot.mjs make <sims dir> <home> <stdlib zip> <output file>
//       Starts Pyodide on that (trimmed) standard library with the private `_makeSnapshot`
//       option, imports the same but runs no sim, then saves `makeMemorySnapshot()` to
//       <output file> and prints {"modules": [...], "bytes": n, "delta": n}. Running every
//       sim would leave its caches and its garbage in the heap: 1.5 MB more on the wire
//       (5.2 MB against 3.7 MB gzipped, issue 40), which every reader downloads before
//       Python is ready, for a first run on the page that has only its own sim to warm.
//
// The sims go into <home>/sims, the very path content/assets/sim/pyodide_start.js uses (HOME). Before
// saving, the allocator's free memory is zeroed (it otherwise holds the garbage of freed
// objects, which compresses badly) and the start of the heap, which holds the wasm's data
// segments, is XORed with the memory as instantiation leaves it: the worker XORs it back
// after its own instantiation (pyodide_start.js, instantiateStreaming), so those 3.8 MB, 98% the
// same bytes the wasm already carries, travel as mostly zeros. "delta" is how many bytes of
// the memory are XORed. The heap is tied to this exact Pyodide build: ridgepoint/browser/snapshot.py
// keys its cache on the version and the sims' bytes, and the worker falls back to a normal
// start if a restore fails.

import { readdirSync, readFileSync, statSync, writeFileSync, renameSync } from "node:fs";
import { join, relative } from "node:path";
import { loadPyodide } from "pyodide";

const [command, simsDir, home, stdlib, output] = process.argv.slice(2);
if (!(command === "list" && simsDir && home) && !(command === "make" && output)) {
  console.error("usage: node make_snapshot.mjs list <sims dir> <home>\n" +
    "       node make_snapshot.mjs make <sims dir> <home> <stdlib zip> <output file>");
  process.exit(2);
}

function pythonFiles(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return name === "__pycache__" ? [] : pythonFiles(path);
    return name.endsWith(".py") ? [path] : [];
  });
}

// The main module's memory as instantiation leaves it: its data segments, nothing run yet.
let initial = null;
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async (...args) => {
  const made = await instantiate.apply(WebAssembly, args);
  const memory = made.instance?.exports?.memory;
  if (initial === null && memory instanceof WebAssembly.Memory) {
    initial = new Uint8Array(memory.buffer).slice();
  }
  return made;
};

const pyodide = await loadPyodide({
  _makeSnapshot: command === "make",
  ...(command === "make" ? { stdLibURL: stdlib } : {}),
  packages: [],
  stdout: () => {},
  stderr: (line) => console.error(line),
});
for (const file of pythonFiles(simsDir)) {
  const target = `${home}/sims/${relative(simsDir, file).split("\\").join("/")}`;
  pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
  pyodide.FS.writeFile(target, readFileSync(file, "utf8"));
}
const found = JSON.parse(pyodide.runPython(`
import sys
sys.path.insert(0, ${JSON.stringify(home)})
import ast, importlib, json, pathlib
importlib.invalidate_caches()  # what the worker does once it has written sims files
import sims
from sims.kit import runner as _runner
for _path in sorted(pathlib.Path(${JSON.stringify(home)}, "sims").rglob("*.py")):
    for _node in ast.walk(ast.parse(_path.read_text())):
        _names = ([alias.name for alias in _node.names] if isinstance(_node, ast.Import)
                  else [_node.module] if isinstance(_node, ast.ImportFrom) and not _node.level
                  else [])
        for _name in _names:
            if _name and _name.split(".")[0] in sys.stdlib_module_names:
                importlib.import_module(_name)
_sims = sims.sim_names()  # imports every sim, and what each imports
for _name in _sims if ${command === "list" ? "True" : "False"} else ():
    _answer = json.loads(_runner.run(_name, "{}"))
    if not _answer["ok"]:
        raise RuntimeError(f"{_name} fails at its defaults: {_answer['message']}")
    _refused = json.loads(_runner.run(_name, '{"not_an_input": 1}'))
    if _refused["ok"]:
        raise RuntimeError(f"{_name} accepted an unknown input")
_zip = f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/"
_members = sorted({getattr(module.__spec__, "origin", None) or "" for module in list(sys.modules.values())
                   if getattr(module, "__spec__", None)} - {""})
for _kept in ('_path', '_node', '_names', '_name', '_sims', '_answer', '_refused'):
    globals().pop(_kept, None)
del _kept
json.dumps({
    "members": [origin[len(_zip):] for origin in _members if origin.startswith(_zip)],
    "modules": sorted(name for name in sys.modules if name == "sims" or name.startswith("sims.")),
})
`));
if (command === "list") {
  process.stdout.write(`${JSON.stringify({ members: found.members })}\n`);
  process.exit(0);
}

// Zero the allocator's free memory without growing the heap: under a footprint limit,
// claim every free block (largest first), clear it, give it all back.
const module = pyodide._module;
module._malloc_set_footprint_limit(module._malloc_footprint());
const claimed = [];
for (let size = 1 << 24; size >= 16; size >>= 1) {
  for (let block = module._malloc(size); block; block = module._malloc(size)) claimed.push([block, size]);
}
for (const [block, size] of claimed) module.HEAPU8.fill(0, block, block + size);
for (const [block] of claimed) module._free(block);
module._malloc_set_footprint_limit(0xffffffff);

const snapshot = pyodide.makeMemorySnapshot();
// The snapshot is a header, then the memory from `start` on (Pyodide's restoreSnapshot).
const start = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 4)[1];
let delta = 0;
if (initial !== null) {
  delta = initial.length;
  while (delta > 0 && initial[delta - 1] === 0) delta--;
  delta = Math.min(delta + 3 & ~3, snapshot.length - start); // whole 32-bit words
  for (let i = 0; i < delta; i++) snapshot[start + i] ^= initial[i];
}
writeFileSync(`${output}.tmp`, snapshot);
renameSync(`${output}.tmp`, output); // atomic: a parallel build never reads half a file
process.stdout.write(`${JSON.stringify({ modules: found.modules, bytes: snapshot.length, delta })}\n`);
