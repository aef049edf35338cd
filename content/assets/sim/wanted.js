// @ts-check
// When a sim's Python is wanted: no Python byte is requested before then.
//
// Python is several MB; a reader who only reads the prose above a sim should not pay for
// it. A sim wants Python once it comes within about one screen of the viewport (the reader
// is scrolling towards it: starting then leaves the second or so Python needs before the
// sim is in view), or once the reader reaches for its controls (controls.js reports that;
// widget.js starts Python then too). Under the browser's Save-Data hint only reaching for
// a control counts: scrolling past a sim costs nothing.

// One viewport above and below: percentages of rootMargin are of the viewport's size.
const NEAR = "100% 0px";

/** @returns {boolean} whether the reader asked the browser to save data */
export function savingData() {
  return Boolean(navigator.connection?.saveData);
}

/**
 * Whether `element` is laid out within about one screen of the viewport now (as NEAR
 * says). A sim not laid out (hidden: an empty box) is left to the observer.
 * @param {Element} element
 */
function nearNow(element) {
  const box = element.getBoundingClientRect();
  const screen = window.innerHeight;
  return (box.width > 0 || box.height > 0) && box.bottom >= -screen && box.top <= 2 * screen;
}

/**
 * Call `wanted` once, when `element` comes within about one screen of the viewport; never
 * under Save-Data. A browser without IntersectionObserver counts every sim as near.
 * A sim near already is wanted at once: an observer reports only from the next frame,
 * which the theme's start-up can hold back by tens of milliseconds, all of them on the
 * path to Python being ready. Returns a function that stops watching.
 * @param {Element} element
 * @param {() => void} wanted
 * @returns {() => void}
 */
export function whenNear(element, wanted) {
  if (savingData()) return () => {};
  if (typeof IntersectionObserver === "undefined" || nearNow(element)) {
    wanted();
    return () => {};
  }
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    wanted();
  }, { rootMargin: NEAR });
  observer.observe(element);
  return () => observer.disconnect();
}
