// @ts-check
// A sim's controls: the inputs the reader sets, kept in step with each other and the URL.
//
// The build wrote every control disabled, showing the starting value; mounting enables
// them, puts in the values the URL carries, and reports each change and the first time
// the reader reaches for the form (a pointer over it, or focus), which is when the widget
// gets the charts and the worker ready. A number has a slider and a text box for its exact
// value (where an out-of-range value can be typed, to be refused beside the control by the
// sim); a choice has a select.

import { required, part } from "./parts.js";
import { mountFold } from "./fold.js";
import { fromQuery, sliderValue, withInputs } from "./inputs.js";

// A dragged slider fires dozens of events a second and browsers throttle history updates,
// so the URL follows once the reader pauses. The run itself is not delayed.
const URL_DELAY_MS = 250;
// What says the reader is about to change an input.
const REACH = ["pointerover", "pointerdown", "focusin"];

/** @typedef {import("./inputs.js").SimConfig} SimConfig */
/** @typedef {import("./inputs.js").Inputs} Inputs */
/** @typedef {import("./inputs.js").InputSpec} InputSpec */

/**
 * @typedef {object} Control
 * @property {InputSpec} spec
 * @property {HTMLInputElement | null} slider
 * @property {HTMLInputElement | null} number
 * @property {HTMLSelectElement | null} choice
 * @property {HTMLElement} error
 */

/**
 * @typedef {object} ControlsView
 * @property {Inputs} values the inputs the controls show, as the reader set them
 * @property {(name: string) => boolean} has whether the input has a control
 * @property {(name: string, message: string) => void} refuse show why a value was refused
 * @property {() => void} clearErrors
 * @property {() => void} disable
 * @property {() => void} dispose
 */

/** @param {Control} control */
function fields(control) {
  return [control.slider, control.number, control.choice].filter((field) => field !== null);
}

/**
 * Show `raw` in every field of a control but the one it came from.
 * @param {Control} control
 * @param {string} raw
 * @param {HTMLElement | null} from
 */
function showValue(control, raw, from = null) {
  const { slider, number, choice, spec } = control;
  if (choice && from !== choice) choice.value = raw;
  if (number && from !== number) number.value = raw;
  if (slider && spec.kind === "number") {
    const position = sliderValue(raw, spec);
    if (from !== slider && position !== null) slider.value = position;
    slider.setAttribute("aria-valuetext", `${slider.value}${spec.unit ? ` ${spec.unit}` : ""}`);
  }
}

/**
 * Enable a sim's controls and report the reader's changes.
 * @param {HTMLElement} root the sim's element
 * @param {SimConfig} config
 * @param {{change: () => void, reach: () => void}} on called after an input changed, and
 *   once when the reader first reaches for the controls
 * @returns {ControlsView}
 */
export function mountControls(root, config, on) {
  const values = fromQuery(config, window.location.search);
  const specs = new Map(config.inputs.map((spec) => [spec.name, spec]));
  /** @type {Map<string, Control>} */
  const controls = new Map();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let urlTimer;

  const form = required(root, "controls");
  form.addEventListener("submit", (event) => event.preventDefault());
  const reach = () => {
    for (const type of REACH) form.removeEventListener(type, reach);
    on.reach();
  };
  for (const type of REACH) form.addEventListener(type, reach);

  const fold = mountFold(form, config);
  fold.show(values);
  // "More inputs" opens when the URL sets one of the inputs it holds, so the reader sees why
  // the results differ from the page's.
  const more = /** @type {HTMLDetailsElement | null} */ (part(root, "more"));
  if (more) {
    more.open = config.show.some((name) => !config.first.includes(name)
      && String(values[name]) !== String(config.start[name]));
  }

  const saveToUrl = () => {
    const next = withInputs(config, values, window.location.href);
    if (next !== window.location.href) window.history.replaceState(window.history.state, "", next);
  };

  for (const name of config.show) {
    const box = required(root, "control", name);
    const spec = /** @type {InputSpec} */ (specs.get(name));
    /** @type {Control} */
    const control = {
      spec,
      slider: /** @type {HTMLInputElement | null} */ (part(box, "slider")),
      number: /** @type {HTMLInputElement | null} */ (part(box, "number")),
      choice: /** @type {HTMLSelectElement | null} */ (part(box, "choice")),
      error: required(box, "error"),
    };
    controls.set(name, control);
    showValue(control, String(values[name]));
    for (const field of fields(control)) {
      field.addEventListener(field === control.choice ? "change" : "input", () => {
        values[name] = field.value;
        showValue(control, field.value, field);
        fold.show(values);
        clearTimeout(urlTimer);
        urlTimer = setTimeout(saveToUrl, URL_DELAY_MS);
        on.change();
      });
      field.disabled = false;
    }
  }

  return {
    values,
    has: (name) => controls.has(name),
    refuse(name, message) {
      const control = /** @type {Control} */ (controls.get(name));
      control.error.textContent = message;
      control.error.hidden = false;
      (control.number ?? control.choice)?.setAttribute("aria-invalid", "true");
    },
    // Only a control showing an error is touched: every write to the page costs a restyle.
    clearErrors() {
      for (const control of controls.values()) {
        if (control.error.hidden) continue;
        control.error.hidden = true;
        control.error.textContent = "";
        for (const field of fields(control)) field.removeAttribute("aria-invalid");
      }
    },
    disable() {
      for (const control of controls.values()) for (const field of fields(control)) field.disabled = true;
    },
    dispose: () => clearTimeout(urlTimer),
  };
}
