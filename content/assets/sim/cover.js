// @ts-check
// From 1220 px a sim reaches over the table of contents' column and, opaque, covers the
// table of contents while it is in view (sim.css). Covered links could still be reached with
// Tab, and the table's entries would be cut mid-line at the sim's edge: while any sim
// overlaps the table of contents, the table is hidden (`data-sim-over` on its sidebar, which
// the stylesheet hides only at that width), and shown again once the sim has scrolled by.

const WIDE = "(min-width: 76.25em)"; // sim.css's wide layout, Material's width for both sidebars

/** Watch the page's sims against its table of contents, once per page. */
function watch() {
  const sidebar = document.querySelector(".md-sidebar--secondary");
  const table = sidebar?.querySelector(".md-nav--secondary");
  if (!(sidebar instanceof HTMLElement) || !table || !document.querySelector("[data-sim]")) return;
  const wide = window.matchMedia(WIDE);
  let queued = false;
  const check = () => {
    queued = false;
    const toc = table.getBoundingClientRect();
    const over = wide.matches && [...document.querySelectorAll("[data-sim]")].some((sim) => {
      const box = sim.getBoundingClientRect();
      return box.top < toc.bottom && box.bottom > toc.top;
    });
    if (over !== sidebar.hasAttribute("data-sim-over")) sidebar.toggleAttribute("data-sim-over", over);
  };
  const soon = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(check);
  };
  window.addEventListener("scroll", soon, { passive: true });
  window.addEventListener("resize", soon, { passive: true });
  soon();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch, { once: true });
else watch();
