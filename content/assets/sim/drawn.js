// @ts-check
// When a change's answer is on screen, and how the work is ordered so that it is soon.
//
// A change's answer is the summary and the first chart: the page writes the summary, then
// draws the first chart in the same task, so both are in the next frame. The other charts
// follow once that frame is painted, all in one task, so a chart that disagrees with the
// summary is on screen for one frame at most. Each stage is a performance mark, detail
// {sim: the widget's key}: `ridgepoint:drawn:first` (summary and first chart) and
// `ridgepoint:drawn:all` (every chart). The bench (scripts/bench/interaction.py) times a
// change from its input event to each; in devtools they show on the timeline. Each mark is
// cleared from the timeline's buffer as soon as it is made (an observer has it already), so
// a reader dragging a slider for an hour does not grow it.

export const FIRST = "ridgepoint:drawn:first";
export const ALL = "ridgepoint:drawn:all";

// A frame the browser may skip (a hidden tab paints none) must not hold the charts back.
const FRAME_WAIT_MS = 50;

/**
 * @param {HTMLElement} root the sim's element
 * @param {typeof FIRST | typeof ALL} stage
 */
export function drawn(root, stage) {
  performance.mark(stage, { detail: { sim: root.dataset.key ?? "" } });
  performance.clearMarks(stage);
}

/**
 * Resolves once the frame holding what was drawn so far has been painted (the next
 * animation frame, then a task after it), or after FRAME_WAIT_MS if no frame comes.
 * @returns {Promise<void>}
 */
export function afterPaint() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      resolve();
    };
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, FRAME_WAIT_MS);
  });
}
