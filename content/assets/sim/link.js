// @ts-check
// The reader's link, and whether the build's memory snapshot is worth its bytes on it
// (pyodide_start.js asks before downloading it).
//
// The snapshot trades bytes for start-up: 4.55 MB more on the wire, against a start
// SNAPSHOT_SAVES_S shorter. On a slow link the bytes cost more than the start saves. So
// Python starts without it, unless a returning reader's cache holds it (no bytes), when
// - the reader asks to save data, or the browser rates the connection below 4G (its
//   effectiveType, from the round trips it has measured: "3g" from about 270 ms), or
// - the runtime's own downloads arrive too slowly for the snapshot to come in that time:
//   "4g" says nothing of the bandwidth, and Chromium's downlink estimate is no help before
//   it has measured anything (1.5 Mbit/s on loopback, on this project's machine).
// Cold, on this project's machine (`make bench`, group `slow`): under Chromium's Slow 4G
// throttling (180 KB/s, 562 ms round trips) the batching explainer's Python was ready after
// 55.8 s with the snapshot (9.2 MB), 33-35 s without it (4.7 MB), the plain Pyodide page's
// after 42.4-43.5 s (6.5 MB); under Fast 4G (1 MB/s, 165 ms), 10.7 s with it, 8.4-8.7 s
// without it (the sim's files fetched meanwhile: worker.js), the plain page's 9.7-10.6 s.
const SLOW_LINKS = new Set(["slow-2g", "2g", "3g"]);
// What the snapshot saves: cold Python ready on loopback (bytes cost nothing there), on this
// project's machine, 3.01 s forced to start fresh against 1.07 s from the snapshot (`make
// bench`, group `page`). So it pays from about 18 Mbit/s. A slower processor makes the
// fresh start, and so the saving, longer: there the rule errs towards the fresh start.
const SNAPSHOT_SAVES_S = 2.0;

// A first estimate of the link's rate, from the runtime's own downloads as their bytes
// arrive. It can err only towards slow: it counts from the first bytes, so a real link's
// slow opening (TCP's slow start) weighs in, and it is timed on this thread, so a moment the
// thread was busy looks like a pause of the link.
const PROBE_BYTES = 1 << 20;
let received = 0;
/** @type {{ at: number, bytes: number } | null} */
let first = null;
/** @type {(rate: number) => void} */
let settle = () => {};
/** Bytes per second the runtime's downloads arrived at, together, once PROBE_BYTES came. */
const linkRate = /** @type {Promise<number>} */ (new Promise((resolve) => { settle = resolve; }));

/** @param {number} bytes arrived just now */
function arrived(bytes) {
  received += bytes;
  const now = performance.now();
  if (!first) first = { at: now, bytes };
  else if (received >= PROBE_BYTES) {
    const seconds = (now - first.at) / 1000;
    settle(seconds > 0 ? (received - first.bytes) / seconds : Infinity);
  }
}

// Read as the bytes come, not as their reader takes them (the wasm's compiler takes them at
// its own pace): room for a whole runtime file between the two.
const AS_THEY_COME = new ByteLengthQueuingStrategy({ highWaterMark: 1 << 24 });

/**
 * `response` with its body counted towards the link's rate as it is read.
 * @param {Response} response
 */
export function metered(response) {
  const counted = /** @type {ReadableStream<Uint8Array>} */ (response.body).pipeThrough(
    new TransformStream({
      transform(/** @type {Uint8Array} */ chunk, controller) {
        arrived(chunk.length);
        controller.enqueue(chunk);
      },
    }, undefined, AS_THEY_COME));
  return new Response(counted, { status: response.status, headers: response.headers });
}

/**
 * Why the snapshot is not worth downloading on this connection, or null.
 * @param {object} snapshot
 * @param {number} snapshot.bytes the snapshot's, on the wire
 * @param {string} snapshot.runtime the URL the runtime's files come from
 * @param {Promise<boolean>} snapshot.downloading whether the wasm comes over the network (not
 *   from a cache), known once its response has begun
 * @param {Promise<unknown>} snapshot.compiled the wasm's compilation, over once all of it came
 * @returns {Promise<string | null>}
 */
export async function costlyLink({ bytes, runtime, downloading, compiled }) {
  const connection = self.navigator.connection;
  if (connection?.saveData) return "the browser asks to save data";
  const rated = connection?.effectiveType;
  if (rated && SLOW_LINKS.has(rated)) return `the browser rates this connection ${rated}`;
  if (!(await downloading)) return null; // nothing to measure
  // The whole wasm compiled before the probe ended: a link as fast as it gets.
  const early = await Promise.race([linkRate, compiled.then(() => Infinity)]);
  if (bytes / early <= SNAPSHOT_SAVES_S) return null; // the estimate errs only towards slow
  // Slow, or this thread was busy: the network's own timing of the runtime's downloads
  // decides, once the wasm has come.
  await compiled;
  const rate = runtimeRate(runtime);
  const seconds = bytes / rate;
  return seconds > SNAPSHOT_SAVES_S ? `the runtime arrived at ${(rate / 1e6).toFixed(2)} MB/s, `
    + `so the snapshot's ${(bytes / 1e6).toFixed(1)} MB would take ${seconds.toFixed(1)} s` : null;
}

/**
 * Bytes per second the files under `runtime` came at, together, as the browser's network
 * timed them (Resource Timing), from the first one's first byte to the last one's end.
 * @param {string} runtime
 */
function runtimeRate(runtime) {
  const entries = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType("resource"))
    .filter((entry) => entry.name.startsWith(runtime) && entry.transferSize > 0);
  const bytes = entries.reduce((sum, entry) => sum + entry.transferSize, 0);
  const seconds = (Math.max(...entries.map((entry) => entry.responseEnd))
    - Math.min(...entries.map((entry) => entry.responseStart))) / 1000;
  return entries.length && seconds > 0 ? bytes / seconds : Infinity;
}
