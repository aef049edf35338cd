// @ts-check
// A chart as a file a reader takes away: SVG text, or a PNG, drawn by Vega from the very spec
// the sim returned, in the colours and type the reader sees on the page.
//
// The chart on the page is no good as the file's source: a live chart is a canvas
// (charts.js), and a prerendered SVG takes its colours and font from sim.css, which a file
// opened elsewhere does not have. So each file is drawn afresh by a view with no renderer of
// its own (Vega's headless SVG and canvas renderers), given everything as attributes: the
// text and rule colours of the page's scheme (chartview.js, `themed`), the page's background
// behind it (a dark scheme's light text would vanish on a viewer's white), and the page's
// font stack, which names fonts the device has. The PNG is Vega's own canvas, so no image
// has to be loaded from a blob: URL (the security policy's img-src stays as it is).

import { loadCharts, themed } from "./chartview.js";

// The plot's width in a file: a live chart fills its box ("container"), which a file has not;
// the prerendered SVGs use the same width (ridgepoint.sims.charts, SVG_WIDTH).
const FILE_WIDTH_PX = 480;
// A PNG at twice its CSS size, sharp on a high-density screen and in a slide.
const PNG_SCALE = 2;
const TRANSPARENT = "rgba(0, 0, 0, 0)";

/** @typedef {import("./livechart.js").Spec} Spec */

/**
 * @typedef {object} Palette how the page draws a chart
 * @property {string} ink the text colour
 * @property {string} background the colour behind the chart
 * @property {string} font the font stack
 */

/**
 * The colours and font a chart has where it stands on the page, now (the scheme the reader
 * chose).
 * @param {HTMLElement} element the chart's figure
 * @returns {Palette}
 */
export function paletteOf(element) {
  const style = getComputedStyle(element);
  /** @type {Element | null} */
  let behind = element;
  while (behind && getComputedStyle(behind).backgroundColor === TRANSPARENT) behind = behind.parentElement;
  return {
    ink: style.color,
    background: behind ? getComputedStyle(behind).backgroundColor : "white",
    // Single quotes: Vega writes the stack into an attribute.
    font: style.fontFamily.replaceAll('"', "'"),
  };
}

/**
 * Draw the spec off screen with `palette` and hand the view to `output`.
 * @template T
 * @param {Spec} spec as the sim returned it
 * @param {Palette} palette
 * @param {(view: VegaView) => Promise<T>} output
 * @returns {Promise<T>}
 */
async function drawn(spec, palette, output) {
  const lib = await loadCharts();
  const fixed = {
    ...spec,
    width: typeof spec.width === "number" ? spec.width : FILE_WIDTH_PX,
    background: palette.background,
    config: { ...spec.config, font: palette.font },
  };
  const compiled = lib.vegaLite.compile(themed(fixed, palette.ink)).spec;
  const view = new lib.vega.View(lib.vega.parse(compiled, null, { ast: true }),
    { expr: lib.expr, renderer: "none", hover: false });
  try {
    await view.runAsync();
    return await output(view);
  } finally {
    view.finalize();
  }
}

/**
 * The chart as an SVG document.
 * @param {Spec} spec
 * @param {Palette} palette
 * @returns {Promise<Blob>}
 */
export async function chartSvg(spec, palette) {
  const svg = await drawn(spec, palette, (view) => view.toSVG());
  return new Blob([svg], { type: "image/svg+xml" });
}

/**
 * The chart as a PNG image.
 * @param {Spec} spec
 * @param {Palette} palette
 * @returns {Promise<Blob>}
 */
export function chartPng(spec, palette) {
  return drawn(spec, palette, async (view) => {
    const canvas = await view.toCanvas(PNG_SCALE);
    return new Promise((resolve, reject) => {
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the browser made no PNG"))), "image/png");
    });
  });
}
