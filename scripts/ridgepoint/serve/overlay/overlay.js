// @ts-check
// Under `make serve` only: the content errors of the last save, shown on every page.
//
// The dev server (scripts/ridgepoint/serve/mkdocs_hooks.py; under Zensical, adapters/
// zensical_serve.py) adds this module to each page it builds and writes errors.json beside
// it after every save; a built site has neither.
// A rejected save leaves the last good page in place, and live reload then reloads it:
// this banner says why the page did not change and lists every problem as
// `path:line: field: message (expected ...)`, until a save fixes them (the next reload
// finds none). It runs under the site's Content Security Policy: a script file, styles
// from a stylesheet file, no inline handlers or style attributes.

const here = new URL(import.meta.url);
const ID = "rp-serve-errors";
const POLL_MS = 1000;

/** @typedef {{where: string, what: string}} Problem  `path:line`, and the rest of it */

/** @returns {Promise<Problem[]>} */
async function problems() {
  const response = await fetch(new URL("errors.json", here), { cache: "no-store" });
  if (!response.ok) return [];
  const state = await response.json();
  return Array.isArray(state.errors) ? state.errors : [];
}

function stylesheet() {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("overlay.css", here).href;
  document.head.append(link);
}

/** @param {Problem[]} found */
function banner(found) {
  const box = document.createElement("section");
  box.id = ID;
  box.className = "rp-serve-errors";
  box.setAttribute("role", "alert");
  box.setAttribute("aria-labelledby", `${ID}-title`);
  const title = document.createElement("h2");
  title.id = `${ID}-title`;
  const count = found.length === 1 ? "1 content error" : `${found.length} content errors`;
  title.textContent = `${count}: this page is the last good version`;
  const hint = document.createElement("p");
  const command = document.createElement("code");
  command.textContent = "make check";
  hint.append("Fix the file and save; the page reloads. ", command, " lists the same.");
  const list = document.createElement("ul");
  for (const problem of found) {
    const item = document.createElement("li");
    const where = document.createElement("code");
    where.textContent = problem.where;
    item.append(where, `: ${problem.what}`);
    list.append(item);
  }
  box.append(title, hint, list);
  return box;
}

let shown = "[]"; // the problems on the page now, as errors.json listed them
let warned = false;

async function show() {
  const found = await problems();
  if (JSON.stringify(found) === shown) return;
  shown = JSON.stringify(found);
  document.getElementById(ID)?.remove();
  if (found.length === 0) return;
  if (!document.querySelector(`link[href="${new URL("overlay.css", here).href}"]`)) stylesheet();
  document.body.prepend(banner(found));
}

function check() {
  show().catch((error) => {
    if (!warned) console.warn("make serve: could not read the content errors", error);
    warned = true;
  });
}

// Read again every second: a rejected save changes no page, and Zensical's server (unlike
// MkDocs', which rebuilds on every save) then reloads none, so the banner comes and goes
// here. A dev server's file on this machine: the cost is nil.
check();
setInterval(check, POLL_MS);
