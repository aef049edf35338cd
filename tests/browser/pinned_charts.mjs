// For tests/browser/test_pinned_charts.py: each chart with a pinned run's marks
// (content/assets/sim/compare.js, ghosted), as the page draws it while a run is pinned,
// compiled and drawn by a Vega view (as SVG, the picture the canvas gets).
//
// stdin:  [[spec, pinned spec], ...]
// stdout: per pair {fresh: bool (no kept view draws it: livechart.js's shape is null),
//         marks: the number of mark items drawn with and without the pinned run's
//         [with, without], error: message (when it cannot be drawn)}

import { readFileSync } from "node:fs";
import * as vega from "vega";
import * as vegaLite from "vega-lite";
import { ghosted } from "../../content/assets/sim/compare.js";
import { lift, shape, sized } from "../../content/assets/sim/livechart.js";

const WIDTH = 480;

async function marks(spec) {
  const fixed = spec.width === "container" ? { ...spec, width: WIDTH } : spec;
  const view = new vega.View(vega.parse(vegaLite.compile(sized(lift(fixed))).spec), { renderer: "none" });
  await view.runAsync();
  const svg = await view.toSVG();
  view.finalize();
  return (svg.match(/<(path|line|rect|circle|text)\b/g) ?? []).length;
}

const answers = [];
for (const [spec, pinned] of JSON.parse(readFileSync(0, "utf8"))) {
  try {
    const both = ghosted(spec, pinned);
    answers.push({ fresh: shape(lift(both)) === null, marks: [await marks(both), await marks(spec)] });
  } catch (error) {
    answers.push({ fresh: false, marks: [0, 0], error: String(error.message ?? error) });
  }
}
process.stdout.write(JSON.stringify(answers));
