// For tests/browser/test_live_charts.py: does a kept view, updated through livechart.js,
// draw exactly what a new view of the new spec draws?
//
// stdin:  [[base spec, next spec], ...]  (Vega-Lite, as sims return them)
// stdout: per pair {kept: bool (same shape, so the page keeps the view), same: bool (SVGs
//         equal; only meaningful when kept), back: bool (the kept view, given the base spec
//         again, draws what a new view of it draws: a kept view's rows are updated in place,
//         so a second update starts from the first one's), moved: bool (the kept view's
//         plot moved, or its width changed: Vega then lays out and redraws every mark), error: message (when either way fails)}

import { readFileSync } from "node:fs";
import * as vega from "vega";
import * as vegaLite from "vega-lite";
import { lift, shape, sized, update } from "../../content/assets/sim/livechart.js";

const WIDTH = 480; // "container" has no container here: both sides get the same width

function fixed(spec) {
  return spec.width === "container" ? { ...spec, width: WIDTH } : spec;
}

// The SVG's elements, sorted: a kept view may list an axis tick it already had before a
// new one (the drawing is the same), and Vega numbers clip paths across every view it
// ever drew (the number is not the picture).
function picture(svg) {
  return svg.replace(/clip\d+/g, "clip").split("><").sort().join("><");
}

async function render(spec) {
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "none" });
  await view.runAsync();
  return view;
}

async function fresh(spec) {
  return picture(await (await render(spec)).toSVG());
}

async function compare(base, next) {
  const before = lift(fixed(base));
  const after = lift(fixed(next));
  if (shape(before) === null || shape(before) !== shape(after)) return { kept: false, same: false };
  const view = await render(sized(before));
  const place = async () => `${view.origin()} ${(await view.toSVG()).match(/width="([\d.]+)"/)[1]}`;
  const origin = await place();
  update(view, before, after);
  await view.runAsync();
  const same = picture(await view.toSVG()) === await fresh(fixed(next));
  const moved = (await place()) !== origin;
  update(view, after, lift(fixed(base)));
  await view.runAsync();
  return { kept: true, same, moved, back: picture(await view.toSVG()) === await fresh(fixed(base)) };
}

const answers = [];
for (const [base, next] of JSON.parse(readFileSync(0, "utf8"))) {
  try {
    answers.push(await compare(base, next));
  } catch (error) {
    answers.push({ kept: false, same: false, error: String(error.message ?? error) });
  }
}
process.stdout.write(JSON.stringify(answers));
