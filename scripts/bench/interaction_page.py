"""The scripts the interaction bench (bench.interaction) runs in a sim's page: what it
records of each change, and how it moves focus and waits, as a reader would."""

from __future__ import annotations

EVENT_THRESHOLD_MS = 16  # Event Timing's durationThreshold, as INP's own observer uses

# Installed once a page is open: records each trusted keydown (with a mark for the trace),
# the widget's drawn marks for the sim under test, and Event Timing's entries.
RECORDER = """
(key) => {
  const seen = (window.__changes = { keys: [], first: [], all: [], events: [], kept: [] });
  window.addEventListener("keydown", (event) => {
    if (!event.isTrusted) return;
    seen.keys.push(event.timeStamp);
    performance.mark(`change-${seen.keys.length - 1}:start`);
  }, true);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name === "ridgepoint:answer:kept") seen.kept.push(entry.startTime);
      if (entry.detail?.sim !== key) continue;
      if (entry.name === "ridgepoint:drawn:first") seen.first.push(entry.startTime);
      if (entry.name === "ridgepoint:drawn:all") {
        seen.all.push(entry.startTime);
        performance.mark(`change-${seen.keys.length - 1}:end`, { startTime: entry.startTime });
      }
    }
  }).observe({ type: "mark" });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      seen.events.push({ name: entry.name, start: entry.startTime, duration: entry.duration,
                         interaction: entry.interactionId || 0 });
    }
  }).observe({ type: "event", durationThreshold: THRESHOLD, buffered: true });
}
""".replace("THRESHOLD", str(EVENT_THRESHOLD_MS))

# Focus one control's field for the keyboard (the slider, or the select), as a reader's Tab
# does, and wait for what that costs the page to be on screen before the key: the focus's
# restyle and, when focusing scrolled the page to the control, the newly exposed part of the
# page drawn (two frames, then FOCUS_SETTLE_MS), as a reader looks at a control before
# changing it. (This did not remove the calculator's long Event Timing entries, keys
# answered in 10-22 ms with no frame presented for 270-720 ms, until about when the URL
# followed the last change: those were keyups released in the same instant as their
# keydown, which bench.interaction now holds for KEY_HOLD_MS.) The counts so far.
FOCUS = """
async ([key, name, settle]) => {
  const box = document.querySelector(`[data-key="${key}"] [data-input="${name}"]`);
  const field = box.querySelector("select") || box.querySelector('input[type="range"]');
  field.focus();
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  await new Promise((resolve) => setTimeout(resolve, settle));
  return window.__changes.all.length;
}
"""
FOCUS_SETTLE_MS = 100

# Resolve once the widget has drawn every chart for the change after `count` were drawn.
SETTLED = """
async ([count, timeout]) => {
  const started = performance.now();
  while (window.__changes.all.length <= count) {
    if (performance.now() - started > timeout) throw new Error("no update after the key");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
"""

# Focus the controls of one widget, as a reader's pointer or Tab key does before a change.
REACH = """
(key) => {
  const field = document.querySelector(`[data-key="${key}"] form.sim-controls`)
    .querySelector("input, select");
  field.focus();
}
"""
