// Makes the Pyodide memory snapshot the browser worker restores instead of starting Python.
//
//   node make_snapshot.mjs <sims dir> <output file> <home>
//
// Starts the pinned Pyodide under Node with the private `_makeSnapshot` option, writes every
// file of the sims package into <home>/sims (the very path content/assets/sim/worker.js
// uses), imports every sim and runs each once at its defaults (so the restored heap holds
// imported modules and warmed-up bytecode), then saves `makeMemorySnapshot()`. The heap
// is tied to this exact Pyodide build: ridgepoint/snapshot.py keys its cache on the
// version and the sims' bytes, and the worker falls back to a normal start if a restore
// fails. Prints one JSON line: the modules the snapshot holds.

import { readdirSync, readFileSync, statSync, writeFileSync, renameSync } from "node:fs";
import { join, relative } from "node:path";
import { loadPyodide } from "pyodide";

const [simsDir, output, home] = process.argv.slice(2);
if (!simsDir || !output || !home) {
  console.error("usage: node make_snapshot.mjs <sims dir> <output file> <home>");
  process.exit(2);
}

function pythonFiles(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return name === "__pycache__" ? [] : pythonFiles(path);
    return name.endsWith(".py") ? [path] : [];
  });
}

const pyodide = await loadPyodide({
  _makeSnapshot: true,
  packages: [],
  stdout: () => {},
  stderr: (line) => console.error(line),
});
for (const file of pythonFiles(simsDir)) {
  const target = `${home}/sims/${relative(simsDir, file).split("\\").join("/")}`;
  pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
  pyodide.FS.writeFile(target, readFileSync(file, "utf8"));
}
const modules = pyodide.runPython(`
import sys
sys.path.insert(0, ${JSON.stringify(home)})
import json
import sims
from sims import _runner
for _name in sims.sim_names():
    _answer = json.loads(_runner.run(_name, "{}"))
    if not _answer["ok"]:
        raise RuntimeError(f"{_name} fails at its defaults: {_answer['message']}")
del _name, _answer
json.dumps(sorted(name for name in sys.modules if name == "sims" or name.startswith("sims.")))
`);
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(`${output}.tmp`, snapshot);
renameSync(`${output}.tmp`, output); // atomic: a parallel build never reads half a file
process.stdout.write(`${JSON.stringify({ modules: JSON.parse(modules), bytes: snapshot.length })}\n`);
