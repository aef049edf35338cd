// Runs sims under Pyodide in Node, for tests/sims/test_cross_runtime.py.
//
// stdin:  {"sims_dir": "...", "stdlib": "<zip>", "files": {module: [file, ...]},
//          "cases": [[module, inputs_json], ...]}
// stdout: {"python": version, "stdlib_bytes": n, "answers": [...]}, with per case the string
//         sims._runner.run(module, inputs_json) returned: the very text the browser's worker
//         posts to the page. The standard library is the trimmed zip the site ships
//         (ridgepoint/browser/stdlib.py), so a module the sims need and the zip lacks fails here.
//
// One Pyodide start for every case (it takes seconds). The sims files are written into
// Pyodide's file system the way the worker writes them: only each module's closure.

import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const request = JSON.parse(readFileSync(0, "utf8"));
const home = "/home/pyodide/ridgepoint";
const pyodide = await loadPyodide({
  packages: [], stdLibURL: request.stdlib, stdout: () => {}, stderr: () => {},
});
pyodide.FS.mkdirTree(`${home}/sims`);
const wanted = new Set(Object.values(request.files).flat());
for (const file of wanted) {
  const path = `${home}/sims/${file}`;
  pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
  pyodide.FS.writeFile(path, readFileSync(`${request.sims_dir}/${file}`, "utf8"));
}
pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(home)})`);
const run = pyodide.pyimport("sims._runner").run;
const version = pyodide.runPython("import sys; sys.version.split()[0]");
const answers = request.cases.map(([module, inputs]) => run(module, inputs));
const mounted = pyodide.runPython("import sys; f'/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip'");
process.stdout.write(JSON.stringify({ python: version, stdlib_bytes: pyodide.FS.stat(mounted).size, answers }));
