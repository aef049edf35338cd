// @ts-check
// Tooltips for titled elements (a glossary link's title is the term's definition), in
// Material's look, in place of its content.tooltips feature.
//
// Material sets up every tooltip while the page loads, a dozen observers per titled element,
// so a page paid for each glossary term it links (up to 16 on an article today, more as the
// glossary grows) in its longest main-thread task. Here two listeners serve every element and
// the work happens when a reader points at or focuses one. As in Material, the tooltip shows
// below the element on hover and on keyboard focus, and names itself as the element's
// description while shown (the title is lifted so the browser does not show its own as well);
// Escape hides it too (WCAG 1.4.13).
const HOSTS = ".md-header [title], .md-content [title]:not([data-preview])";
const FADE_MS = 250; // Material's fade-out

/** @type {{host: Element, title: string, node: HTMLElement} | null} */
let shown = null;

/** @param {string} text */
function tooltip(text) {
  const node = document.createElement("div");
  node.className = "md-tooltip2 md-tooltip2--bottom";
  node.id = "__rp_tooltip";
  node.setAttribute("role", "tooltip");
  const inner = node.appendChild(document.createElement("div"));
  inner.className = "md-tooltip2__inner md-typeset";
  inner.textContent = text;
  return node;
}

/** @param {Element} host */
function show(host) {
  hide();
  const title = host.getAttribute("title");
  if (!title) return;
  const node = document.body.appendChild(tooltip(title));
  host.removeAttribute("title");
  host.setAttribute("aria-describedby", node.id);
  shown = { host, title, node };
  // Material's variables: where the host is on the page, where the tooltip starts from
  // (its middle, 8 px below), and the text's own width, so it centres under the host.
  const box = host.getBoundingClientRect();
  const place = {
    "--md-tooltip-host-x": box.left + window.scrollX,
    "--md-tooltip-host-y": box.top + window.scrollY,
    "--md-tooltip-x": box.width / 2,
    "--md-tooltip-y": box.height + 8,
    "--md-tooltip-width": /** @type {HTMLElement} */ (node.firstElementChild).offsetWidth,
    "--md-tooltip-tail": 0,
  };
  for (const [name, value] of Object.entries(place)) node.style.setProperty(name, `${value}px`);
  requestAnimationFrame(() => node.classList.add("md-tooltip2--active")); // fades in
}

function hide() {
  if (!shown) return;
  const { host, title, node } = shown;
  shown = null;
  host.setAttribute("title", title);
  host.removeAttribute("aria-describedby");
  node.classList.remove("md-tooltip2--active");
  setTimeout(() => node.remove(), FADE_MS);
}

/** @param {EventTarget | null} target */
function hostOf(target) {
  if (shown && shown.host.contains(/** @type {Node | null} */ (target))) return shown.host;
  return target instanceof Element ? target.closest(HOSTS) : null;
}

document.addEventListener("mouseover", (event) => {
  const host = hostOf(event.target);
  if (host !== shown?.host) host ? show(host) : hide();
});
document.addEventListener("focusin", (event) => {
  const host = hostOf(event.target);
  if (host !== shown?.host) host ? show(host) : hide();
});
document.addEventListener("mouseout", (event) => {
  if (!event.relatedTarget) hide(); // the pointer left the window
});
document.addEventListener("focusout", hide);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") hide();
});
