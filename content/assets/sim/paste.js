// @ts-check
// A pasted config.json remembered in this browser, so one paste serves every sim.
//
// "Paste a config.json" is offered by every sim's Model control; a reader who pasted their
// model on one page finds it filled in on the next when they choose "custom" there (the
// control says so). Only the compact text the sim's Python made of a good paste is kept
// (sims/physics/model_choice.py, `read`), in localStorage, never sent anywhere. A browser
// that refuses storage (a private window's quota, a policy) simply does not remember.

const KEY = "ridgepoint.model_config";

/** The last good paste, or "" when there is none (or storage is refused). */
export function remembered() {
  try {
    return window.localStorage.getItem(KEY) ?? "";
  } catch {
    return "";
  }
}

/** @param {string} value a good paste's compact text */
export function remember(value) {
  try {
    window.localStorage.setItem(KEY, value);
  } catch {
    // Not remembered: the paste still works on this page.
  }
}
