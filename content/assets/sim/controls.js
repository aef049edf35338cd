// @ts-check
// A sim's controls: the inputs the reader sets, kept in step with each other and the URL.
//
// The build wrote every control disabled, showing the starting value; mounting enables
// them, puts in the values the URL carries, and reports each change and the first time
// the reader reaches for the form (a pointer over it, or focus), which is when the widget
// gets the charts and the worker ready. A number has a slider and a text box for its exact
// value (where an out-of-range value can be typed, to be refused beside the control by the
// sim); a choice has a select; a text has a text field, and when a file fills it a file
// picker, whose file the sim reads (python.js, in the worker: the file stays on the reader's
// device; the reader reached for the form to pick it, so Python has been asked for). A text
// of several lines (a pasted config.json, shown while the model is "custom") is read by the
// sim's Python first: refused beside the box, or taken in its compact form (the URL's) with
// a line saying what was read, and remembered in this browser for the other sims (paste.js).

import { required, part } from "./parts.js";
import { mountFold } from "./fold.js";
import { fromQuery, isShown, sliderValue, withInputs } from "./inputs.js";
import { remember, remembered } from "./paste.js";
import { read } from "./python.js";

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
 * @property {HTMLInputElement | HTMLTextAreaElement | null} text
 * @property {HTMLInputElement | null} file
 * @property {HTMLElement} error
 * @property {HTMLElement} box the control's element (hidden with its choice: `shown_when`)
 * @property {HTMLElement | null} note what a paste's reader understood
 */



/**
 * @typedef {object} ControlsView
 * @property {Inputs} values the inputs the controls show, as the reader set them
 * @property {(name: string) => boolean} has whether the input has a control
 * @property {(name: string, message: string) => void} refuse show why a value was refused
 * @property {(updates: Record<string, string | number>) => void} set put values in (a
 *   result's suggestion), as if the reader had: the URL follows and the sim reruns
 * @property {() => void} clearErrors
 * @property {() => void} disable
 * @property {() => void} dispose
 */

/** @param {Control} control */
function fields(control) {
  return [control.slider, control.number, control.choice, control.text].filter((field) => field !== null);
}

/**
 * Show `raw` in every field of a control but the one it came from.
 * @param {Control} control
 * @param {string} raw
 * @param {HTMLElement | null} from
 */
function showValue(control, raw, from = null) {
  const { slider, number, choice, text, spec } = control;
  if (choice && from !== choice) choice.value = raw;
  if (text && from !== text) text.value = raw;
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

  /**
   * An input takes a value: every field of its control shows it, the URL follows.
   * @param {Control} control
   * @param {string} raw
   * @param {HTMLElement | null} from the field it came from (left as the reader has it)
   */
  const take = (control, raw, from = null) => {
    values[control.spec.name] = raw;
    showValue(control, raw, from);
    fold.show(values);
    for (const other of controls.values()) other.box.hidden = !isShown(other.spec, values);
    clearTimeout(urlTimer);
    urlTimer = setTimeout(saveToUrl, URL_DELAY_MS);
  };

  /**
   * @param {Control} control
   * @param {string} message
   */
  const refuse = (control, message) => {
    control.error.textContent = message;
    control.error.hidden = false;
    if (more?.contains(control.error)) more.open = true; // a message nobody can see helps nobody
    (control.number ?? control.choice ?? control.text)?.setAttribute("aria-invalid", "true");
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
      text: /** @type {HTMLInputElement | HTMLTextAreaElement | null} */ (part(box, "text")),
      file: /** @type {HTMLInputElement | null} */ (part(box, "file")),
      error: required(box, "error"),
      box,
      note: part(box, "note"),
    };
    controls.set(name, control);
    showValue(control, String(values[name]));
    box.hidden = !isShown(spec, values);
    if (spec.kind === "text" && spec.reads) {
      mountPaste(control);
      continue;
    }
    for (const field of fields(control)) {
      // A text runs once it is typed (Enter, or leaving the field), not at every key: half a
      // line is rarely a value the sim takes.
      const changes = field === control.choice || field === control.text;
      field.addEventListener(changes ? "change" : "input", () => {
        take(control, field.value, field);
        on.change();
      });
      field.disabled = false;
    }
    const picker = control.file;
    if (picker) {
      picker.addEventListener("change", async () => {
        const file = picker.files?.[0];
        if (!file) return;
        picker.value = ""; // the same file picked again is a change again
        /** @type {import("./python.js").ReadAnswer} */
        let answer;
        try {
          answer = await read(config.module, config.files, name, await file.text());
        } catch (error) {
          answer = { ok: false, input: name, message: `could not be read (${/** @type {Error} */ (error).message}): pick it again` };
        }
        if (answer.ok) {
          take(control, answer.value);
          on.change();
        } else {
          refuse(control, `${file.name}: ${answer.message}`);
        }
      });
      picker.disabled = false;
    }
  }

  /**
   * A paste read by the sim's Python: refused beside the box, or its compact text taken
   * (the box keeps what the reader pasted) with what was read said under it.
   * @param {Control} control
   * @param {string} text
   * @param {{run: boolean, from: string}} how `run`: rerun the sim on it; `from`: said
   *   before the note ("" for a paste, else where the text came from)
   */
  async function readPaste(control, text, how) {
    const name = control.spec.name;
    /** @type {import("./python.js").ReadAnswer} */
    let answer;
    try {
      answer = await read(config.module, config.files, name, text);
    } catch (error) {
      answer = { ok: false, input: name, message: `could not be read (${/** @type {Error} */ (error).message})` };
    }
    const note = control.note;
    if (!answer.ok) {
      if (note) note.hidden = true;
      refuse(control, answer.message);
      return;
    }
    if (values[name] !== answer.value) take(control, answer.value, how.run ? control.text : null);
    remember(answer.value);
    if (note) {
      note.textContent = `${how.from}${answer.note ?? ""}`;
      note.hidden = false;
    }
    if (how.run) on.change();
  }

  /**
   * A text area read by the sim on a paste (or a change once the reader leaves it); its
   * choice, turned to the value that shows it, fills it with the last good paste when empty.
   * @param {Control} control
   */
  function mountPaste(control) {
    const area = /** @type {HTMLTextAreaElement} */ (control.text);
    const spec = /** @type {import("./inputs.js").TextInput} */ (control.spec);
    const [choiceName, wanted] = (spec.shown_when ?? "").split("=");
    let pasted = false;
    area.addEventListener("input", (event) => {
      pasted = /** @type {InputEvent} */ (event).inputType?.startsWith("insertFrom") ?? false;
      if (pasted) readPaste(control, area.value, { run: true, from: "" });
    });
    area.addEventListener("change", () => {
      if (!pasted) readPaste(control, area.value, { run: true, from: "" });
      pasted = false;
    });
    area.disabled = false;
    const choice = controls.get(choiceName)?.choice;
    choice?.addEventListener("change", () => {
      const last = remembered();
      if (choice.value !== wanted || values[spec.name] || !last) return;
      take(control, last); // before the run the choice's own change asks for
      readPaste(control, last, { run: false, from: "Your last paste, kept in this browser. " });
    }, { capture: true });
    // A link carrying a pasted config: say what it holds.
    if (values[spec.name]) readPaste(control, String(values[spec.name]), { run: false, from: "" });
  }

  return {
    values,
    has: (name) => controls.has(name),
    refuse(name, message) {
      refuse(/** @type {Control} */ (controls.get(name)), message);
    },
    set(updates) {
      for (const [name, value] of Object.entries(updates)) {
        const control = controls.get(name);
        if (control) take(control, String(value));
      }
      on.change();
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
      for (const control of controls.values()) {
        for (const field of fields(control)) field.disabled = true;
        if (control.file) control.file.disabled = true;
      }
    },
    dispose: () => clearTimeout(urlTimer),
  };
}
