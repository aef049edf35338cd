// @ts-check
// Ridgepoint's sim widget: brings every prerendered [data-sim] element on a page to life.
//
// The build wrote each sim's controls (disabled), its summary table and its charts (SVG)
// into the page, plus a JSON config (module, inputs, starting values, metric labels, the
// sims files it needs). This script enables the controls, starts one Python worker for the
// whole page once a sim wants it (wanted.js: the sim comes within about a screen of the
// viewport, or the reader reaches for its controls; nothing of Python is fetched before),
// reruns the sim on every change (at most one run in flight per sim; the
// latest input wins), and keeps the inputs in the URL so a scenario can be shared. The
// chart library is only fetched once the reader reaches for the controls (a pointer over
// them, or focus): the live charts are then built, hidden, and the worker warms up, so the
// first change is quick. Until the inputs differ from the prerendered ones, the
// prerendered SVG is the chart.
//
// State and DOM are apart, as in Material's components: phase.js decides (every event goes
// through its `transition`, which returns the next state and the effects to perform), and
// this module only carries events in and effects out, over the modules that own the DOM:
// controls.js (the inputs and the URL), results.js (status line, summary and tables),
// charts.js (the live charts), toolbar.js (the result as files, and its link), pin.js (a run
// kept to compare with); python.js is
// the page's one worker. Every element any of
// them binds to is a part marked data-sim-part (parts.js).
//
// data-state on each sim: prerendered -> loading -> ready, or error (reason shown).
// A run that takes too long is stopped: the worker is terminated and a new one started, the
// reader is told, and the other sims on the page carry on with the new worker.
// All paths are relative to this file, so the site works at any depth and base path.

import "./cover.js";
import { SIM, part } from "./parts.js";
import { Sim } from "./sim.js";

// -- start-up, including Material's instant navigation ----------------------------------------

/** @type {Set<Sim>} the sims of the current page */
const sims = new Set();

function initialise() {
  for (const sim of [...sims]) {
    if (!sim.element.isConnected) {
      sim.dispose();
      sims.delete(sim);
    }
  }
  const mounted = new Set([...sims].map((sim) => sim.element));
  for (const element of document.querySelectorAll(SIM)) {
    // A sim stays prerendered until it is wanted: mounted or not, its state does not say.
    if (!(element instanceof HTMLElement) || mounted.has(element)) continue;
    if (element.dataset.state !== "prerendered") continue;
    try {
      sims.add(new Sim(element));
    } catch (error) {
      element.dataset.state = "error";
      const status = part(element, "status");
      if (status) status.textContent = `The live version could not start (${/** @type {Error} */ (error).message}).`;
    }
  }
}

// The page loads this module early, right after its first sim (an async module script the
// build writes there), so that a sim in view starts Python while the theme starts up; the
// sims parsed so far are mounted now, any later ones when the page is parsed. Loaded only at
// the end of the page (extra_javascript), it runs once parsing is done. With
// navigation.instant, Material swaps pages without rerunning scripts and announces each
// page on its document$ observable. initialise skips sims already mounted.
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
