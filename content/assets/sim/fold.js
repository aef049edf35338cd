// @ts-check
// A sim's controls folded into a compact bar on a narrow screen: one button that opens
// them and a line with the values of the inputs the page talks about.
//
// The stylesheet decides where the fold applies (sim.css: below 960 px, where the controls
// sit above the charts and would scroll away from them); there the form sticks under the
// page's header while the charts scroll, so the inputs stay one tap away. On a wide screen
// the bar is not displayed and every control shows. The script makes the bar: without it
// the controls are shown unfolded, as the build wrote them.

/**
 * @typedef {object} FoldView
 * @property {(values: import("./inputs.js").Inputs) => void} show the values in the bar's line
 */

/**
 * @param {HTMLElement} form the sim's controls
 * @param {import("./inputs.js").SimConfig} config
 * @returns {FoldView}
 */
export function mountFold(form, config) {
  const bar = document.createElement("div");
  bar.className = "sim-fold";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "sim-fold-button";
  const line = document.createElement("span");
  line.className = "sim-fold-values";
  line.setAttribute("aria-hidden", "true"); // the controls say the same, labelled
  bar.append(button, line);
  form.id ||= `sim-${config.key}-inputs`;
  button.setAttribute("aria-controls", form.id);
  form.prepend(bar);

  /** @param {boolean} open */
  const set = (open) => {
    form.dataset.fold = open ? "open" : "closed";
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? "Hide inputs" : "Inputs";
  };
  set(false);
  button.addEventListener("click", () => set(form.dataset.fold !== "open"));
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || form.dataset.fold !== "open") return;
    set(false);
    button.focus();
  });

  const specs = new Map(config.inputs.map((spec) => [spec.name, spec]));
  // A pasted file (a config.json) is no value for one line: its choice says "custom".
  const named = (config.first.length ? config.first : config.show.slice(0, 4)).filter((name) => {
    const spec = specs.get(name);
    return !(spec?.kind === "text" && (spec.lines ?? 1) > 1);
  });
  return {
    show(values) {
      const text = named.map((name) => {
        const spec = specs.get(name);
        const unit = spec?.kind === "number" && spec.unit ? ` ${spec.unit}` : "";
        return `${spec?.label ?? name} ${values[name]}${unit}`;
      }).join(" · ");
      if (line.textContent !== text) line.textContent = text;
    },
  };
}
