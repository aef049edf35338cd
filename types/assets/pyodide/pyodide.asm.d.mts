// Emscripten's module factory as the build stages it into assets/pyodide/: pyodide_start.js passes
// it to loadPyodide as createPyodideModule.
declare const createPyodideModule: (settings: object) => Promise<any>;
export default createPyodideModule;
