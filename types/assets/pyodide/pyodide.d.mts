// Pyodide's loader as the build stages it into assets/pyodide/ (from the pinned npm package,
// whose own declarations these are).
export { loadPyodide } from "pyodide";
