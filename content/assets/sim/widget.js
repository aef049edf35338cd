// Ridgepoint's sim widget: brings every prerendered [data-sim] element on a page to life.
//
// The build wrote each sim's controls (disabled), its summary table and its charts (SVG)
// into the page, plus a JSON config (module, inputs, starting values, metric labels, the
// sims files it needs). This script enables the controls, starts one Python worker for the
// whole page, reruns the sim on every change (at most one run in flight per sim; the
// latest input wins), and keeps the inputs in the URL so a scenario can be shared. The
// chart library is only fetched once the reader reaches for the controls (a pointer over
// them, or focus): the live charts are then built, hidden, and the worker warms up, so the
// first change is quick. Until the inputs differ from the prerendered ones, the
// prerendered SVG is the chart.
//
// data-state on each sim: prerendered -> loading -> ready, or error (reason shown).
// A run that takes too long is stopped: the worker is terminated and a new one started, the
// reader is told, and the other sims on the page carry on with the new worker.
// All paths are relative to this file, so the site works at any depth and base path.

// Results are written as the build wrote them (the twin of ridgepoint.sim_embed.display).
import { display } from "./format.js";

const WORKER_URL = new URL("worker.js", import.meta.url);
const VENDOR_URL = new URL("../vendor/", import.meta.url);
const STEPS = 4; // worker: start Python, load the sim; page: first run; done
const URL_DELAY_MS = 250;
const FADE_DELAY_MS = 250;
const LIVE = "Live: change any input and the results follow.";
// Sims answer in milliseconds; a run still going after this is stuck. Tests shorten it by
// setting window.ridgepointRunTimeoutMs before this script runs.
const RUN_TIMEOUT_MS = 5000;
// Runs the worker makes ahead of the reader's first change, so that V8 has compiled Python's
// hot paths by then (worker.js, warm): the first twenty runs of a sim take 2-4x longer.
const WARM_UP_RUNS = 20;

function runTimeout() {
  return Number(window.ridgepointRunTimeoutMs) || RUN_TIMEOUT_MS;
}

// -- one worker per page ---------------------------------------------------------------------

let worker = null;
let broken = null; // why the worker cannot run anything, once that is known
const sims = new Set(); // live Sim objects on the current page
const runs = new Map(); // run id -> Sim waiting for it
let nextRunId = 1;

function broadcast(method, ...args) {
  for (const sim of sims) sim[method](...args);
}

function getWorker() {
  if (worker) return worker;
  // The page may have started it before its first sim (ridgepoint/sim_embed.py): take it, once.
  const early = window.ridgepointWorker;
  window.ridgepointWorker = null;
  const current = early ?? new Worker(WORKER_URL, { type: "module" });
  worker = current;
  worker.onmessage = ({ data }) => {
    if (current !== worker) return; // a replaced worker's last messages
    if (data.type === "progress") broadcast("progress", data.step, data.text);
    else if (data.type === "loaded") broadcast("loaded", data.module);
    else if (data.type === "failed") broadcast("failed", data.module, data.message);
    else if (data.type === "fatal") giveUp(`Python could not start: ${data.message}`);
    else if (data.type === "result") {
      const sim = runs.get(data.id);
      runs.delete(data.id);
      if (sim) sim.receive(JSON.parse(data.payload));
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    if (current === worker) giveUp("the Python worker could not be started (a runtime file failed to load)");
  };
  return worker;
}

// A stuck run cannot be interrupted inside the worker: stop the worker and start another.
// Runs in flight are lost with it; every sim loads its module again and reruns if it must.
function replaceWorker() {
  worker?.terminate();
  worker = null;
  runs.clear();
  broadcast("restart");
}

function giveUp(reason) {
  broken ??= reason; // sims met later (instant navigation) are told at once
  broadcast("fail", reason);
}

// -- the chart library, on demand --------------------------------------------------------------

let chartLibrary = null;

function loadCharts() {
  // vega and vega-lite are UMD builds that set globals; expressions.js evaluates Vega
  // expressions without generated code (a CSP without 'unsafe-eval' stays possible), with
  // vega-interpreter's tables, which read the vega global: it is imported after vega.
  chartLibrary ??= (async () => {
    await import(new URL("vega.min.js", VENDOR_URL).href);
    await import(new URL("vega-lite.min.js", VENDOR_URL).href);
    const [{ preparedExpressions }, live] = await Promise.all(
      ["expressions.js", "livechart.js"].map((name) => import(new URL(name, import.meta.url).href)));
    return { vega: globalThis.vega, vegaLite: globalThis.vegaLite, expr: preparedExpressions, live };
  })();
  return chartLibrary;
}

// -- values as the page shows them ------------------------------------------------------------

function sameInputs(a, b) {
  return Object.keys(a).every((name) => String(a[name]) === String(b[name]));
}

// The live SVG gets the text alternative the prerendered one has (same ids: it replaces it):
// a <title> and a <desc>, appended after the children Vega manages (its root group and defs),
// which Vega's later renders leave in place. A kept view's SVG has them already: only text
// that changed is written, since any node added to the SVG or attribute set on it makes the
// browser restyle the whole chart (the theme has sibling selectors that match anything).
function describeChart(svg, spec, id) {
  const namespace = "http://www.w3.org/2000/svg";
  const parts = [["title", spec.title], ["desc", spec.description]].map(([tag, text]) => {
    let element = svg.querySelector(`:scope > [id="${id}-${tag}"]`);
    if (!element) {
      element = document.createElementNS(namespace, tag);
      element.id = `${id}-${tag}`;
      svg.append(element);
    }
    setText(element, text ?? "");
    return element;
  });
  setAttributes(svg, { role: "img", "aria-labelledby": parts.map((part) => part.id).join(" ") });
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (element.getAttribute(name) !== value) element.setAttribute(name, value);
  }
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

// A chart's Vega view, drawn into `container`; with its lifted spec (livechart.js), whose
// shape says which later specs the view can draw, and text, which says whether one differs.
async function newView(lib, spec, container, lifted = lib.live.lift(spec),
  shape = lib.live.shape(lifted), text = JSON.stringify(lifted)) {
  const compiled = lib.vegaLite.compile(lib.live.sized(lifted)).spec;
  const runtime = lib.vega.parse(compiled, null, { ast: true });
  const view = new lib.vega.View(runtime, { expr: lib.expr, renderer: "svg", container, hover: true });
  try {
    await view.runAsync();
  } catch (error) {
    view.finalize();
    throw error;
  }
  return { view, shape, lifted, text, container };
}

// -- one embedded sim -------------------------------------------------------------------------

class Sim {
  constructor(element) {
    this.element = element;
    this.config = JSON.parse(element.querySelector("script.sim-config").textContent);
    this.key = this.config.key;
    this.specs = Object.fromEntries(this.config.inputs.map((spec) => [spec.name, spec]));
    this.values = { ...this.config.start };
    this.shown = { ...this.config.start }; // the inputs the visible results belong to
    this.controls = new Map();
    this.charts = []; // per chart: {view, shape, lifted, text, container, pending}
    this.chartWork = Promise.resolve(); // the chart operation in progress (drawCharts)
    this.shownCharts = null; // the live charts the prerendered ones still stand for
    this.intent = false; // the reader has reached for the controls (prepare)
    this.state = "prerendered";
    this.running = false;
    this.dirty = false;
    this.status = element.querySelector(".sim-status-text");
    this.progressBar = element.querySelector(".sim-progress");

    this.restoreFromUrl();
    this.bindControls();
    this.setState("loading");
    this.progress(0, "Starting the live version");
    if (broken) {
      this.fail(broken);
      return;
    }
    getWorker().postMessage({ type: "load", module: this.config.module, files: this.config.files });
  }

  setState(state) {
    this.state = state;
    this.element.dataset.state = state;
  }

  // URL parameters are "<key>.<input>", so several sims on a page keep separate inputs.
  param(name) {
    return `${this.key}.${name}`;
  }

  restoreFromUrl() {
    const query = new URLSearchParams(window.location.search);
    for (const name of this.config.show) {
      const value = query.get(this.param(name));
      if (value !== null) this.values[name] = value;
    }
  }

  saveToUrl() {
    const url = new URL(window.location.href);
    for (const name of this.config.show) {
      if (String(this.values[name]) === String(this.config.start[name])) {
        url.searchParams.delete(this.param(name));
      } else {
        url.searchParams.set(this.param(name), String(this.values[name]));
      }
    }
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url);
  }

  bindControls() {
    const form = this.element.querySelector("form.sim-controls");
    form.addEventListener("submit", (event) => event.preventDefault());
    // Interaction is about to begin: get the charts ready while the reader decides.
    for (const type of ["pointerover", "pointerdown", "focusin"]) {
      form.addEventListener(type, () => this.prepare(), { once: true });
    }
    for (const name of this.config.show) {
      const box = this.element.querySelector(`[data-input="${name}"]`);
      const control = {
        slider: box.querySelector('input[type="range"]'),
        text: box.querySelector("input.sim-value"),
        select: box.querySelector("select"),
        error: box.querySelector(".sim-error"),
        unit: this.specs[name].unit ? ` ${this.specs[name].unit}` : "",
      };
      this.controls.set(name, control);
      this.showValue(name, control);
      if (control.slider) {
        control.slider.addEventListener("input", () => this.change(name, control.slider.value, "slider"));
        control.text.addEventListener("input", () => this.change(name, control.text.value, "text"));
      }
      if (control.select) {
        control.select.addEventListener("change", () => this.change(name, control.select.value, "select"));
      }
      for (const field of [control.slider, control.text, control.select]) {
        if (field) field.disabled = false;
      }
    }
  }

  showValue(name, control, except = null) {
    const raw = String(this.values[name]);
    if (control.select && except !== "select") control.select.value = raw;
    if (control.text && except !== "text") control.text.value = raw;
    if (control.slider && except !== "slider") {
      const spec = this.specs[name];
      const number = Number(raw.trim());
      if (raw.trim() !== "" && Number.isFinite(number) && number >= spec.min && number <= spec.max) {
        control.slider.value = raw.trim();
      }
    }
    if (control.slider) control.slider.setAttribute("aria-valuetext", `${control.slider.value}${control.unit}`);
  }

  change(name, raw, from) {
    this.values[name] = raw;
    this.showValue(name, this.controls.get(name), from);
    // A dragged slider fires dozens of events a second; browsers throttle history updates,
    // so the URL follows once the reader pauses. The run itself is not delayed.
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => this.saveToUrl(), URL_DELAY_MS);
    this.request();
  }

  request() {
    this.markStale();
    if (this.state === "error") return;
    if (this.stopped && sameInputs(this.values, this.stopped)) return; // ran too long: wait for a change
    if (!this.loadedModule) {
      this.dirty = true; // runs as soon as the sim is loaded (again, after a restart)
      return;
    }
    if (this.running) {
      this.dirty = true; // the latest input wins: one run in flight, then the newest inputs
      return;
    }
    this.running = true;
    this.dirty = false;
    const id = nextRunId++;
    runs.set(id, this);
    this.sent = { ...this.values };
    this.stopped = null;
    this.awaiting = true;
    this.watchdog = setTimeout(() => this.tooLong(), runTimeout());
    getWorker().postMessage({ type: "run", id, module: this.config.module, inputs: this.sent });
  }

  tooLong() {
    this.stopped = this.sent;
    replaceWorker();
    const seconds = runTimeout() / 1000;
    this.status.textContent = `The simulation ran for more than ${seconds} s on these inputs, so it was stopped. The results below are for the last inputs that finished; change an input to run it again.`;
  }

  restart() {
    clearTimeout(this.watchdog);
    if (this.awaiting) {
      this.awaiting = false;
      this.running = false;
      this.dirty = true; // that run was lost with the old worker (one being drawn was not)
    }
    if (this.state === "error") return;
    this.loadedModule = false;
    getWorker().postMessage({ type: "load", module: this.config.module, files: this.config.files });
  }

  // -- messages from the worker --

  progress(step, text) {
    if (this.state !== "loading") return;
    this.status.textContent = `${text}… The results below were computed when this page was built.`;
    this.progressBar.hidden = false;
    this.progressBar.value = step;
    this.progressBar.max = STEPS;
  }

  loaded(module) {
    if (module !== this.config.module || this.loadedModule) return;
    this.loadedModule = true;
    if (this.state === "loading") {
      this.progress(3, "Running the simulation");
      this.request(); // the first live run: the same inputs as the prerendered results, or the URL's
    } else if (this.dirty) {
      this.request(); // loaded again by a new worker: rerun what the old one lost
    }
  }

  failed(module, message) {
    if (module === this.config.module) this.fail(`the simulation could not be loaded: ${message}`);
  }

  fail(reason) {
    if (this.state === "error") return;
    this.setState("error");
    this.progressBar.hidden = true;
    this.status.textContent = `The live version could not start (${reason}). The results below were computed when this page was built, for the inputs they were built with.`;
    for (const control of this.controls.values()) {
      for (const field of [control.slider, control.text, control.select]) if (field) field.disabled = true;
    }
  }

  async receive(answer) {
    clearTimeout(this.watchdog);
    this.awaiting = false;
    // `running` stays set until the answer is on screen, so renders never overlap (a chart
    // view built by a stale render could otherwise outlive the current one).
    if (!this.dirty) {
      try {
        await this.show(answer);
      } catch (error) {
        this.status.textContent = `The live charts could not be drawn (${error.message}); the table is up to date.`;
      }
      if (this.state === "loading") {
        this.setState("ready");
        this.progressBar.hidden = true;
      }
    }
    this.running = false;
    if (this.dirty) this.request(); // a newer input arrived meanwhile: the latest input wins
  }

  async show(answer) {
    this.clearErrors();
    const besideControl = !answer.ok && answer.kind === "input" && this.controls.has(answer.input);
    if (answer.ok || besideControl) setText(this.status, LIVE);
    if (answer.ok) {
      await this.render(answer.result, this.sent);
    } else if (besideControl) {
      this.showError(answer.input, answer.message);
    } else {
      this.status.textContent = answer.kind === "input"
        ? `These inputs were refused: ${answer.message}`
        : `The simulation failed on these inputs: ${answer.message}`;
    }
  }

  // Only a control showing an error is touched: every write to the page costs a restyle.
  clearErrors() {
    for (const control of this.controls.values()) {
      if (control.error.hidden) continue;
      control.error.hidden = true;
      control.error.textContent = "";
      for (const field of [control.slider, control.text, control.select]) field?.removeAttribute("aria-invalid");
    }
  }

  showError(name, message) {
    const control = this.controls.get(name);
    control.error.textContent = message;
    control.error.hidden = false;
    (control.text ?? control.select).setAttribute("aria-invalid", "true");
  }

  // -- results --

  async render(result, inputs) {
    this.renderSummary(result.summary);
    (result.tables ?? []).forEach((table, index) => this.renderTable(table, index));
    // The prerendered SVGs show exactly these inputs' charts until the inputs change.
    if (this.charts.length || !sameInputs(inputs, this.config.start)) {
      await this.renderCharts(result.charts);
    } else {
      this.shownCharts = result.charts;
      if (this.intent) this.prepareCharts(result.charts);
    }
    this.shown = inputs;
    this.markStale();
  }

  // data-stale says at once whether the results shown belong to the inputs; they fade
  // (data-fading) only when they stay stale for a moment (Python starting, a slow run). Most
  // runs answer in milliseconds: a fade started and undone within a frame would flicker, and
  // make the browser paint the charts on a layer of their own and back for nothing.
  markStale() {
    const output = this.element.querySelector(".sim-output");
    const stale = !sameInputs(this.values, this.shown);
    output.dataset.stale = String(stale);
    if (stale) {
      this.fadeTimer ??= setTimeout(() => {
        output.dataset.fading = "";
      }, FADE_DELAY_MS);
    } else {
      clearTimeout(this.fadeTimer);
      this.fadeTimer = null;
      delete output.dataset.fading;
    }
  }

  // The tables keep their rows when a run has the same rows as the last (as every run of a
  // sim but the odd one does) and only the cells whose text changed are written: the page
  // then restyles and lays out those cells, not every row of every table.
  renderSummary(summary) {
    const body = this.element.querySelector("table.sim-summary tbody");
    const entries = Object.entries(summary);
    const rows = body.rows;
    if (rows.length === entries.length && entries.every(([name], i) => rows[i].dataset.key === name)) {
      entries.forEach(([, value], i) => setText(rows[i].cells[1], display(value)));
      return;
    }
    body.replaceChildren(...entries.map(([name, value]) => {
      const row = document.createElement("tr");
      row.dataset.key = name;
      const label = document.createElement("th");
      label.scope = "row";
      label.textContent = this.config.metrics[name] ?? name;
      const cell = document.createElement("td");
      cell.textContent = display(value);
      row.append(label, cell);
      return row;
    }));
  }

  renderTable(table, index) {
    const body = this.element.querySelector(`.sim-table[data-table="${index}"] tbody`);
    if (!body) return;
    const texts = table.rows.map((row) => table.columns.map((column) => display(row[column.key])));
    const rows = body.rows;
    if (rows.length === texts.length && texts.every((line, i) => rows[i].cells.length === line.length)) {
      texts.forEach((line, i) => line.forEach((text, j) => setText(rows[i].cells[j], text)));
      return;
    }
    body.replaceChildren(...texts.map((line) => {
      const row = document.createElement("tr");
      for (const text of line) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }));
  }

  // The reader is about to change an input (a pointer over the controls, or focus). The
  // first change would otherwise wait for the chart library and then build every chart's
  // view, a few hundred milliseconds before anything moves. Both happen now instead, on the
  // live result the prerendered charts show, in hidden containers that the first change
  // updates and reveals. Until then the prerendered SVG stays the chart.
  prepare() {
    if (this.intent || this.state === "error") return;
    this.intent = true;
    loadCharts().catch(() => {}); // a failure is reported by the first change that needs it
    if (this.shownCharts) this.prepareCharts(this.shownCharts);
    getWorker().postMessage({
      type: "warm", module: this.config.module, inputs: { ...this.values }, runs: WARM_UP_RUNS,
    });
  }

  prepareCharts(specs) {
    this.drawCharts(async () => {
      if (this.charts.length) return; // live already
      try {
        const lib = await loadCharts();
        for (const [index, spec] of specs.entries()) {
          const figure = this.element.querySelector(`figure.sim-chart[data-chart="${index}"]`);
          if (!figure) continue;
          const container = document.createElement("div");
          container.className = "sim-chart-pending";
          figure.append(container);
          try {
            this.charts[index] = { ...(await newView(lib, spec, container)), pending: true };
          } catch (error) {
            container.remove();
            throw error;
          }
        }
      } catch {
        // Not ready ahead, then: the first change builds the charts and reports any failure.
        for (const chart of this.charts) {
          chart?.view.finalize();
          chart?.container.remove();
        }
        this.charts = [];
      }
    });
  }

  // Chart views are built and updated one operation at a time: a change that arrives while
  // the charts are being prepared waits for them, then updates the views prepared.
  drawCharts(work) {
    const done = this.chartWork.then(work);
    this.chartWork = done.catch(() => {});
    return done;
  }

  renderCharts(specs) {
    return this.drawCharts(async () => {
      const lib = await loadCharts();
      await Promise.all(specs.map((spec, index) => this.renderChart(lib, spec, index)));
    });
  }

  async renderChart(lib, spec, index) {
    const figure = this.element.querySelector(`figure.sim-chart[data-chart="${index}"]`);
    if (!figure) return;
    // What the sim varies with its inputs (rows, reference values, titles) is set apart
    // (livechart.js): when the rest, the shape, is unchanged the view is kept and given
    // the new rows and values, an order of magnitude cheaper than building a new view.
    const next = lib.live.lift(spec);
    const shape = lib.live.shape(next);
    const current = this.charts[index];
    const text = JSON.stringify(next);
    const id = `${this.element.id}-chart${index}`;
    if (current && shape !== null && current.shape === shape) {
      if (text === current.text) return; // the same chart: nothing to draw
      lib.live.update(current.view, current.lifted, next);
      await current.view.runAsync();
      if (current.pending) {
        // The prerendered SVG goes; the live one, laid out already, stays where it is.
        for (const child of [...figure.children]) if (child !== current.container) child.remove();
        current.container.className = "sim-chart-live";
      }
      const svg = current.container.querySelector("svg");
      if (svg) describeChart(svg, spec, id);
      this.charts[index] = { ...current, lifted: next, text, pending: false };
      return;
    }
    current?.view.finalize();
    const container = document.createElement("div");
    container.className = "sim-chart-live";
    figure.replaceChildren(container);
    this.charts[index] = await newView(lib, spec, container, next, shape, text);
    const svg = container.querySelector("svg");
    if (svg) describeChart(svg, spec, id);
  }

  dispose() {
    clearTimeout(this.urlTimer);
    clearTimeout(this.fadeTimer);
    clearTimeout(this.watchdog);
    for (const chart of this.charts) chart?.view.finalize();
    this.charts = [];
    for (const [id, sim] of runs) if (sim === this) runs.delete(id);
  }
}

// -- start-up, including Material's instant navigation ----------------------------------------

function initialise() {
  for (const sim of [...sims]) {
    if (!sim.element.isConnected) {
      sim.dispose();
      sims.delete(sim);
    }
  }
  for (const element of document.querySelectorAll("[data-sim]")) {
    if (element.dataset.state !== "prerendered") continue;
    try {
      sims.add(new Sim(element));
    } catch (error) {
      element.dataset.state = "error";
      const status = element.querySelector(".sim-status-text");
      if (status) status.textContent = `The live version could not start (${error.message}).`;
    }
  }
}

// The page loads this module early, right after its first sim (an async module script the
// build writes there), so Python's download and start overlap the theme's own start-up;
// the sims parsed so far start now, any later ones when the page is parsed. Loaded only at
// the end of the page (extra_javascript), it runs once parsing is done. With
// navigation.instant, Material swaps pages without rerunning scripts and announces each
// page on its document$ observable. initialise skips sims already started.
function followTheme() {
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(initialise);
  }
}

initialise();
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => {
    initialise();
    followTheme();
  }, { once: true });
} else {
  followTheme();
}
