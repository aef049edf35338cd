// @ts-check
// Python's files as the worker gets them: downloaded (a failure names its file), inflated
// when the site gzipped them itself, and the snapshot's heap rebuilt.
//
// The build gzips the wasm (kept under its own name, pyodide.asm.wasm), the trimmed
// standard library and the snapshot (ridgepoint packed.py, stdlib.py, snapshot.py), since a
// plain static host compresses none of those types. A host that does add `Content-Encoding` has the browser inflate them already: the
// first two bytes tell (gzip's magic number 1f 8b), so either way works. A returning
// reader's copy comes inflated from the service worker's cache (sw.js), marked by a header.

const UNPACKED = "X-Ridgepoint-Unpacked"; // set by sw.js on the inflated copies it keeps

const realFetch = self.fetch.bind(self);

/**
 * fetch, with an error that names the file (Pyodide's own says only "Failed to fetch").
 * @param {RequestInfo | URL} resource
 * @param {RequestInit} [options]
 */
export async function download(resource, options) {
  const url = new URL(resource instanceof Request ? resource.url : resource, self.location.href);
  const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  let response;
  try {
    response = await realFetch(resource, options);
  } catch (error) {
    throw new Error(`could not download ${name} (${/** @type {Error} */ (error).message})`);
  }
  if (!response.ok) throw new Error(`could not download ${name} (HTTP ${response.status})`);
  return response;
}

/**
 * The body of a response as its file was before the build gzipped it, as a stream that
 * starts flowing with the download (checked by gzip's own trailer: a cut or damaged
 * download fails the stream). `type` is the Content-Type of the response returned.
 * @param {Response} response
 * @param {string} type
 * @returns {Promise<Response>}
 */
export async function inflated(response, type) {
  // As the cache holds it, untouched: compiling a cached response, the browser can keep
  // the compiled wasm beside it for the next visit.
  if (response.headers.has(UNPACKED) && response.headers.get("Content-Type") === type) return response;
  const reader = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (
    /** @type {ReadableStream<Uint8Array>} */ (response.body).getReader());
  let first = new Uint8Array(0); // enough of the start to read gzip's magic number
  while (first.length < 2) {
    const read = await reader.read();
    if (read.done) break;
    first = joined(first, read.value);
  }
  const body = new ReadableStream({
    start(controller) {
      if (first.length) controller.enqueue(first);
    },
    async pull(controller) {
      const read = await reader.read();
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzipped = first[0] === 0x1f && first[1] === 0x8b;
  const stream = gzipped ? body.pipeThrough(new DecompressionStream("gzip")) : body;
  return new Response(stream, { headers: { "Content-Type": type } });
}

/** @param {Uint8Array} first @param {Uint8Array} second */
function joined(first, second) {
  const both = new Uint8Array(first.length + second.length);
  both.set(first);
  both.set(second, first.length);
  return both;
}

/**
 * The heap back from its sparse form into `heap`, page by page as it arrives (no copy of
 * the whole sparse form is made): magic "RPS1", u32 page size, heap size, page count, the
 * non-zero pages' indexes, then their bytes (little-endian; see ridgepoint/browser/snapshot.py).
 * `heap` is zeroed and sized by the manifest (which the header must agree with): Pyodide
 * is handed it before the download ends (pyodide_start.js restore).
 * @param {ReadableStream<Uint8Array>} body the inflated stream
 * @param {Uint8Array} heap
 */
export async function inflateHeap(body, heap) {
  const reader = body.getReader();
  let head = new Uint8Array(0); // the header, while it is incomplete
  let started = false;
  let indexes = new Uint32Array(0), page = 0, written = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    let chunk = read.value;
    if (!started) {
      head = joined(head, chunk);
      const view = new DataView(head.buffer);
      if (head.length >= 4 && view.getUint32(0, true) !== 0x31535052) {
        throw new Error("the Python snapshot is not in the expected format");
      }
      if (head.length < 16) continue;
      const [size, count] = [8, 12].map((at) => view.getUint32(at, true));
      const start = 16 + 4 * count;
      if (head.length < start) continue;
      if (size !== heap.length) throw new Error("the Python snapshot does not match its manifest");
      page = view.getUint32(4, true);
      indexes = new Uint32Array(head.buffer.slice(16, start));
      started = true;
      chunk = head.subarray(start);
    }
    for (let offset = 0; offset < chunk.length;) {
      const nth = Math.floor(written / page);
      const within = written - nth * page;
      const target = indexes[nth] * page + within;
      const length = Math.min(page - within, chunk.length - offset, heap.length - target);
      if (!(length > 0)) throw new Error("the Python snapshot is damaged");
      heap.set(chunk.subarray(offset, offset + length), target);
      offset += length;
      written += length;
    }
  }
  const pages = indexes.length;
  const expected = pages && (pages - 1) * page + Math.min(page, heap.length - indexes[pages - 1] * page);
  if (!started || written !== expected) throw new Error("the Python snapshot is damaged");
}

/**
 * Undo the build's XOR of the heap's start with the wasm's data segments (make_snapshot.mjs):
 * `memory` is as instantiation left it, holding those segments and nothing else yet.
 * Pyodide's snapshot is a header, then the memory from the offset at its bytes 4-7.
 * @param {Uint8Array} snapshot
 * @param {ArrayBuffer} memory
 * @param {number} length bytes XORed (a multiple of 4)
 */
export function undoDelta(snapshot, memory, length) {
  const start = new DataView(snapshot.buffer, snapshot.byteOffset).getUint32(4, true);
  if (length % 4 || start + length > snapshot.length || length > memory.byteLength) {
    throw new Error("the Python snapshot does not fit this Python");
  }
  const aligned = (snapshot.byteOffset + start) % 4 === 0;
  const target = aligned ? new Uint32Array(snapshot.buffer, snapshot.byteOffset + start, length / 4)
    : snapshot.subarray(start, start + length);
  const source = aligned ? new Uint32Array(memory, 0, length / 4) : new Uint8Array(memory, 0, length);
  for (let i = 0; i < target.length; i++) target[i] ^= source[i];
}
