// @ts-check
// Registers the site's service worker (sw.js at the site root, so its scope is the whole
// site), which keeps visited pages and their simulations working offline.
//
// A release installed while the current one had not yet seen the new deployment waits
// (sw.js): each page asks it to take over, which it does once the current one is superseded.
//
// Registration waits until the page has loaded and no sim on it is still starting: the
// worker's install then copies the Python runtime out of the browser's HTTP cache instead
// of downloading it a second time alongside the page's own download. A sim still
// prerendered has not asked for Python (widget.js starts it only when it is wanted); one
// that the first frame shows near the viewport has asked by the second frame after load. A browser without
// service workers, or one that refuses them (private modes, test harnesses), simply has no
// offline copy; nothing on the page depends on it.

const SERVICE_WORKER = new URL("../sw.js", import.meta.url);
const STARTING = '[data-sim][data-state="loading"]';
const TAKE_OVER = "take over if superseded"; // understood by a waiting sw.js

function loaded() {
  return document.readyState === "complete"
    ? Promise.resolve()
    : new Promise((resolve) => window.addEventListener("load", resolve, { once: true }));
}

// Two frames: the sims' visibility is measured in the first, reported before the second.
function framesPassed() {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
}

function simsSettled() {
  return /** @type {Promise<void>} */ (new Promise((resolve) => {
    const check = () => {
      if (document.querySelector(STARTING)) return false;
      observer.disconnect();
      resolve();
      return true;
    };
    const observer = new MutationObserver(check);
    if (!check()) {
      observer.observe(document.body, { subtree: true, attributeFilter: ["data-state"] });
    }
  }));
}

if ("serviceWorker" in navigator) {
  loaded()
    .then(framesPassed)
    .then(simsSettled)
    .then(() => navigator.serviceWorker.register(SERVICE_WORKER))
    .then((registration) => registration.waiting?.postMessage(TAKE_OVER))
    .catch(() => {}); // no offline copy; the page itself is unaffected
}
