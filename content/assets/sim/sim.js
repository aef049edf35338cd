// @ts-check
// One embedded sim on the page: the glue between its phase (phase.js) and its parts, which
// the modules below own (widget.js, the entry module, finds the sims and mounts each as a
// Sim). Every event goes through phase.js's `transition`; this module carries events in and
// effects out.

import { ahead } from "./ahead.js";
import { mountCharts } from "./charts.js";
import { mountControls } from "./controls.js";
import { mountPin } from "./pin.js";
import { sameInputs } from "./inputs.js";
import { enclosing, required } from "./parts.js";
import { dataState, initial, transition } from "./phase.js";
import * as python from "./python.js";
import { mountResults } from "./results.js";
import { mountTakeaway } from "./toolbar.js";
import { whenNear } from "./wanted.js";

const STEPS = 4; // worker: start Python, load the sim; page: first run; done
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

/** @typedef {import("./inputs.js").Inputs} Inputs */
/** @typedef {import("./phase.js").SimEvent} SimEvent */

/**
 * One embedded sim: the glue between its state (phase.js) and its parts on the page.
 * @implements {python.Listener}
 */
export class Sim {
  /** @param {HTMLElement} element */
  constructor(element) {
    this.element = element;
    /** @type {import("./inputs.js").SimConfig} */
    this.config = JSON.parse(required(element, "config").textContent ?? "");
    this.state = initial();
    /** @type {Inputs} the inputs the visible results belong to */
    this.shown = { ...this.config.start };
    /** @type {Inputs} the inputs of the last run sent */
    this.sent = this.shown;
    /** @type {Inputs | null} the inputs of a run that took too long, until a run is sent */
    this.stuck = null;
    /** @type {Inputs} the inputs shown before the current ones (which way the reader moved) */
    this.before = this.shown;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.watchdog = undefined;
    /** whether the run in flight has its first part on screen (drawFirst) */
    this.firstShown = false;
    // A result's suggested inputs (its `apply`) are set as the reader would set them.
    this.results = mountResults(element, this.config.metrics, (inputs) => this.controls.set(inputs));
    this.charts = mountCharts(element);
    this.takeaway = mountTakeaway(element, this.config);
    /** @type {import("./results.js").SimResult | null} the result on screen, once live */
    this.last = null;
    this.pin = mountPin(element, this.config, () => this.redraw());
    this.controls = mountControls(element, this.config, {
      change: () => this.change(),
      reach: () => this.reach(),
    });
    // Focus on a control says which one the reader will move next: its neighbours are run.
    element.addEventListener("focusin", () => {
      if (this.state.phase === "ready" && this.state.live) this.lookAhead();
    });
    this.unwatch = () => {};
    const broken = python.join(this);
    if (broken) this.dispatch({ type: "fail", reason: broken });
    else this.unwatch = whenNear(element, () => this.want());
  }

  // Python is wanted for this sim (near the viewport, or the reader reached for it).
  want() {
    this.unwatch();
    if (this.state.phase === "prerendered") this.dispatch({ type: "start" });
  }

  /**
   * Move to the state the event leads to, show it, and perform its effects but "draw"
   * (which `receive` performs, having the answer). Returns the effects.
   * @param {SimEvent} event
   */
  dispatch(event) {
    const before = dataState(this.state);
    const { state, effects } = transition(this.state, event);
    this.state = state;
    const now = dataState(state);
    if (now !== before) {
      this.element.dataset.state = now;
      if (now === "loading") this.results.progress(0, STEPS, "Starting the live version");
      if (now !== "loading") this.results.hideProgress();
      if (now === "error") {
        this.results.say(`The live version could not start (${state.reason}). The results below were computed when this page was built, for the inputs they were built with.`);
        this.controls.disable();
      }
    }
    for (const effect of effects) {
      if (effect === "load") python.load(this.config.module, this.config.files);
      else if (effect === "run") this.send();
      else if (effect === "stop") this.stop();
    }
    return effects;
  }

  send() {
    this.sent = { ...this.controls.values };
    this.stuck = null;
    this.results.markStale(!sameInputs(this.sent, this.shown)); // the URL's inputs, at first
    this.watchdog = setTimeout(() => {
      this.dispatch({ type: "timeout", stuck: sameInputs(this.controls.values, this.sent) });
    }, runTimeout());
    // The first live run: the same inputs as the prerendered results, or the URL's.
    if (!this.state.live) this.results.progress(3, STEPS, "Running the simulation");
    this.firstShown = false;
    python.run(this, this.config.module, this.sent, this.results.working, true);
  }

  stop() {
    this.stuck = this.sent;
    this.pin.drop(); // a pinned run not computed yet may be what took too long
    python.replace(); // every sim, this one too, hears `restart`
    const seconds = runTimeout() / 1000;
    this.results.say(`The simulation ran for more than ${seconds} s on these inputs, so it was stopped. The results below are for the last inputs that finished; change an input to run it again.`);
  }

  // -- from the controls --

  change() {
    this.want(); // an input changed without a reach first (a script, an assistive tool)
    const values = this.controls.values;
    this.results.markStale(!sameInputs(values, this.shown));
    this.dispatch({ type: "change", stuck: this.stuck !== null && sameInputs(values, this.stuck) });
  }

  // The reader is about to change an input (a pointer over the controls, a press, or
  // focus): Python starts if it has not yet, the charts get their views ready, and the
  // worker makes the runs that warm it up.
  reach() {
    if (this.state.phase === "error") return;
    this.want();
    this.charts.reach();
    python.warm(this.config.module, { ...this.controls.values }, WARM_UP_RUNS);
  }

  // -- from the worker (python.Listener) --

  /** @param {number} step @param {string} text */
  progress(step, text) {
    if (dataState(this.state) === "loading") this.results.progress(step, STEPS, text);
  }

  /** @param {string} module */
  loaded(module) {
    if (module !== this.config.module) return;
    this.pin.loaded(); // the pinned run first: the worker answers in order
    this.dispatch({ type: "loaded" });
  }

  /** @param {string} module @param {string} message */
  failed(module, message) {
    if (module === this.config.module) this.fail(`the simulation could not be loaded: ${message}`);
  }

  /** @param {string} reason */
  fail(reason) {
    this.dispatch({ type: "fail", reason });
  }

  restart() {
    clearTimeout(this.watchdog);
    this.dispatch({ type: "restart" });
  }

  /**
   * @param {import("./python.js").Answer} answer
   * @param {boolean} [partial] the first part of a run answered in two (its rest follows)
   */
  async receive(answer, partial = false) {
    if (partial) {
      this.drawFirst(answer);
      return;
    }
    clearTimeout(this.watchdog);
    // Newer inputs waiting: they run at once, and this answer is not drawn.
    if (!this.dispatch({ type: "answer" }).includes("draw")) return;
    // The run stays in flight until its answer is on screen, so renders never overlap (a
    // chart view built by a stale render could otherwise outlive the current one).
    try {
      await this.draw(answer);
    } catch (error) {
      this.results.say(`The live charts could not be drawn (${/** @type {Error} */ (error).message}); the table is up to date.`);
    }
    this.dispatch({ type: "drawn" });
    if (this.state.phase === "ready") this.lookAhead();
  }

  // The answer on screen and nothing newer to run: the worker makes the runs one step away
  // (ahead.js; python.js makes them only for a sim whose runs are quick, and not at all when
  // window.ridgepointAhead is false).
  lookAhead() {
    const focused = enclosing(document.activeElement, "control");
    const name = focused && this.element.contains(focused) ? focused.dataset.input ?? null : null;
    python.ahead(this.config.module, ahead(this.config.inputs, this.shown, this.before, name));
  }

  /**
   * A run's first part (sims/kit/phased.py): the summary, its figures still to come shown
   * pending, and the first charts, in the frame after it arrives; the whole answer, drawn
   * by `draw`, follows. Not drawn when newer inputs wait (that answer is never drawn), nor
   * for the starting inputs, whose prerendered charts stand.
   * @param {import("./python.js").Answer} answer
   */
  drawFirst(answer) {
    if (!answer.ok || this.state.phase !== "running" || !this.state.awaiting) return;
    if (!this.pin.active() && sameInputs(this.sent, this.config.start)) return;
    this.controls.clearErrors();
    this.results.say(LIVE);
    this.results.write(answer.result, answer.pending);
    this.pin.preview(answer.result, answer.pending ?? []);
    this.firstShown = true;
    this.charts.showFirst(this.pin.charts(answer.result.charts)).catch(() => {
      this.firstShown = false; // the whole answer draws them, and says what failed
    });
  }

  /** @param {import("./python.js").Answer} answer */
  async draw(answer) {
    this.controls.clearErrors();
    const input = !answer.ok && answer.kind === "input" ? answer.input : null;
    const besideControl = typeof input === "string" && this.controls.has(input);
    if (answer.ok || besideControl) this.results.say(LIVE);
    if (answer.ok) {
      const inputs = this.sent;
      this.results.write(answer.result);
      // The files follow the summary at once: a reader may take them before the charts are drawn.
      this.takeaway.hold(inputs, answer.result);
      this.pin.hold(inputs, answer.result);
      this.last = answer.result;
      if (!sameInputs(inputs, this.shown)) this.before = this.shown;
      this.shown = inputs;
      await this.redraw();
      this.results.markStale(!sameInputs(this.controls.values, this.shown));
    } else if (besideControl) {
      this.controls.refuse(/** @type {string} */ (input), answer.message);
    } else {
      this.results.say(answer.kind === "input"
        ? `These inputs were refused: ${answer.message}`
        : `The simulation failed on these inputs: ${answer.message}`);
    }
  }

  // The charts of the result shown, with the pinned run's beside them. The prerendered SVGs
  // show exactly the starting inputs' charts, until the inputs change or a run is pinned.
  async redraw() {
    if (!this.last) return;
    const prerendered = !this.pin.active() && sameInputs(this.shown, this.config.start);
    const firstShown = this.firstShown;
    this.firstShown = false;
    await this.charts.show(this.pin.charts(this.last.charts), prerendered, firstShown);
  }

  dispose() {
    this.unwatch();
    clearTimeout(this.watchdog);
    this.controls.dispose();
    this.results.dispose();
    this.charts.dispose();
    python.leave(this);
  }
}
