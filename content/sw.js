// @ts-check
// Ridgepoint's service worker: the site keeps working offline after one visit.
//
// It lives at the site root so that its scope is the whole site. The builder
// (scripts/ridgepoint/finishing/offline.py) replaces RELEASE below with this build's release: its
// id (a hash of every built file), a manifest (every file's path and content hash), the
// files to cache at install (the site's scripts and styles, the sims, the chart library,
// the search index) and the Python runtime (Pyodide and its snapshot), which install takes
// only from the browser's HTTP cache (a page's sim has just downloaded it) and which is
// otherwise kept when first used: a reader of the home page does not download Python.
// The runtime files the build gzipped itself (the wasm, the standard library, the
// snapshot: `packed`) are kept twice, as they came and inflated once here, and Python's
// worker reads the inflated copy from the cache itself, under a key naming those bytes: it
// would otherwise spend a returning reader's start inflating some 20 MB again on its own
// thread. Pages are cached as they are visited.
//
// One version at a time. The cache of a release is named by its id and holds only bytes
// whose hash its manifest lists, so it is never a mix of two deployments; activating a new
// release deletes the old caches. While the deployment on the server is the one this
// worker was built with, runtime files come from the cache (fast, offline) and pages from
// the network (fresh), falling back to the cache offline. Once any response shows a newer
// deployment, this worker stops answering from its cache while the network answers, so a
// page of the new deployment never gets the old one's files; the new worker takes over
// when it has cached its own release. If the browser installed the new release before the
// old worker saw a page of it, the new worker waits; every page asks a waiting worker to
// take over (offline.js), and it does once the old release knows it is superseded.
//
// Unbuilt (under `make serve`) RELEASE stays null: the worker then removes any cache a
// built site left on this origin and handles no requests, so live reload is untouched.

const RELEASE = /* RIDGEPOINT_RELEASE */ null;

/**
 * What the build writes in place of null above (ridgepoint/finishing/offline.py).
 * @typedef {object} Release
 * @property {string} id a hash of every built file
 * @property {string[]} precache the files cached at install
 * @property {string[]} runtime the Python runtime's files, kept once the browser has them
 * @property {string[]} packed those of them the build gzipped (kept inflated as well)
 * @property {Record<string, string>} files every file's path -> the start of its SHA-256
 */

// This script runs as the service worker.
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

const SCOPE = new URL("./", self.location.href);
const CACHE_PREFIX = `ridgepoint:${SCOPE.pathname}:`;
const SUPERSEDED = new URL("__superseded__", SCOPE).href; // a marker kept in an old cache
const TAKE_OVER = "take over if superseded"; // what a page asks a waiting worker (offline.js)
const UNPACKED = "X-Ridgepoint-Unpacked"; // on an inflated copy (read by assets/sim/unpack.js)

if (RELEASE === null) {
  worker.addEventListener("install", () => worker.skipWaiting());
  worker.addEventListener("activate", (event) => {
    event.waitUntil(dropCaches(() => true).then(() => worker.clients.claim()));
  });
} else {
  const release = /** @type {Release} */ (/** @type {unknown} */ (RELEASE));
  const CACHE = CACHE_PREFIX + release.id;
  const KEPT = new Set([...release.precache, ...release.runtime]); // served cache-first
  const PACKED = new Set(release.packed);

  worker.addEventListener("install", (event) => {
    // A failed install leaves no half-filled cache behind to be mistaken for a release.
    event.waitUntil(install().catch(async (error) => {
      await caches.delete(CACHE);
      throw error;
    }));
  });
  worker.addEventListener("activate", (event) => {
    event.waitUntil(dropCaches((name) => name !== CACHE).then(() => worker.clients.claim())
      .then(keepOpenPages));
  });
  worker.addEventListener("message", (event) => {
    if (event.data === TAKE_OVER) event.waitUntil(takeOverIfSuperseded());
  });
  worker.addEventListener("fetch", (event) => {
    const path = pathOf(event.request.url);
    if (event.request.method !== "GET" || path === null) return; // not a file of this release
    event.respondWith(respond(event, path));
  });

  async function install() {
    const cache = await caches.open(CACHE);
    // The pages open now: the first visit happened before this worker could see it.
    const pages = await openPages();
    await Promise.all([...new Set([...release.precache, ...pages])].map(async (path) => {
      await cache.put(urlOf(path), await releaseCopy(path));
    }));
    await Promise.all(release.runtime.map(async (path) => {
      /** @type {RequestInit} */
      const options = { cache: "only-if-cached", mode: "same-origin" };
      const response = await fetch(urlOf(path), options).catch(() => null);
      if (response && (await belongs(response.clone(), path))) await store(cache, path, response);
    }));
    await takeOverIfSuperseded();
  }

  /** @returns {Promise<string[]>} the paths of this release's pages open in a window */
  async function openPages() {
    const open = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
    return /** @type {string[]} */ (open.map((client) => pathOf(client.url)).filter((path) => path !== null));
  }

  // This release's copy of a file. The HTTP cache usually has it already (a page just used
  // it); if what it has belongs to another release, ask the server; if the server has
  // another release too, this one is already out of date.
  /** @param {string} path */
  async function releaseCopy(path) {
    let response = await fetch(urlOf(path));
    if (!(await belongs(response.clone(), path))) {
      response = await fetch(urlOf(path), { cache: "reload" });
      if (!(await belongs(response.clone(), path))) {
        throw new Error(`${path} on the server is not the one release ${release.id} lists`);
      }
    }
    return response;
  }

  // A page being reloaded while this release installed was between its two documents, so
  // install did not see it, and it was served by the release before: once in charge, this
  // release keeps the open pages it lacks, so they work offline as install promises.
  async function keepOpenPages() {
    const cache = await openCache();
    await Promise.all((await openPages()).map(async (path) => {
      if (await cache.match(urlOf(path))) return;
      // A copy that cannot be had now (offline, a newer deployment) is kept on the next visit.
      await releaseCopy(path).then((response) => cache.put(urlOf(path), response)).catch(() => {});
    }));
  }

  // Take over at once unless a page of the current release may still need its files:
  // when the current release has seen a newer deployment it no longer serves its cache.
  async function takeOverIfSuperseded() {
    const names = (await caches.keys()).filter((name) => name.startsWith(CACHE_PREFIX));
    const current = names.filter((name) => name !== CACHE);
    const stale = await Promise.all(current.map(async (name) =>
      Boolean(await (await caches.open(name)).match(SUPERSEDED))));
    if (stale.every(Boolean)) await worker.skipWaiting();
  }

  // The cache, opened once, and whether it is superseded, read once (then kept up to date
  // by keep()), per start of this worker: each is a round trip to the cache's storage that
  // every request would otherwise pay before its own.
  /** @type {Promise<Cache> | null} */
  let opened = null;
  /** @type {Promise<boolean> | null} */
  let marked = null;
  function openCache() {
    opened ??= caches.open(CACHE).catch((error) => {
      opened = null; // a failure is not remembered: the next request tries again
      throw error;
    });
    return opened;
  }
  function isSuperseded() {
    marked ??= openCache().then((cache) => cache.match(SUPERSEDED)).then(Boolean, (error) => {
      marked = null;
      throw error;
    });
    return marked;
  }

  /** @param {FetchEvent} event @param {string} path */
  async function respond(event, path) {
    const request = event.request;
    const [cache, superseded] = await Promise.all([openCache(), isSuperseded()]);
    const key = urlOf(path);
    if (KEPT.has(path) && !superseded) {
      const hit = await cache.match(key);
      if (hit) return hit;
    }
    let response;
    try {
      // Revalidated with the server: the HTTP cache may still hold the previous
      // deployment's copy, which would pass for the current one.
      response = await fetch(request, { cache: "no-cache" });
    } catch (error) {
      const hit = await cache.match(key);
      if (hit) return hit;
      if (request.mode === "navigate") return offlinePage();
      throw error;
    }
    if (!superseded && response.ok && response.type === "basic" && !response.redirected) {
      const checked = keep(event, response.clone(), path, cache);
      // A page is checked before it is shown: if it is a newer deployment's, that must be
      // known before the page asks for its files. Anything else streams on meanwhile.
      if (request.mode === "navigate") await checked;
      else event.waitUntil(checked);
    }
    return response;
  }

  // Resolves once it is known whether the response is this release's; its copy into the
  // cache goes on after that, kept alive by the event.
  /** @param {FetchEvent} event @param {Response} response @param {string} path @param {Cache} cache */
  async function keep(event, response, path, cache) {
    if (await belongs(response.clone(), path)) {
      event.waitUntil(store(cache, path, response));
    } else {
      // A newer deployment is on the server: from now on the network comes first.
      await cache.put(SUPERSEDED, new Response(""));
      marked = Promise.resolve(true);
      worker.registration.update().catch(() => {});
    }
  }

  // A response of this release into its cache; a packed one also inflated, from the same
  // checked bytes (so it belongs to the release as they do), under a key no page asks for
  // that names those bytes by their hash: Python's worker reads it from the cache directly
  // (assets/sim/worker.js), with the hash its manifest gives.
  // The inflated copy is a speed-up only: if it cannot be kept (storage full), the packed
  // one is served, and the release installs all the same.
  /** @param {Cache} cache @param {string} path @param {Response} response */
  async function store(cache, path, response) {
    if (!PACKED.has(path)) return cache.put(urlOf(path), response);
    const inflated = /** @type {ReadableStream} */ (response.clone().body)
      .pipeThrough(new DecompressionStream("gzip"));
    const headers = { "Content-Type": response.headers.get("Content-Type") ?? "application/octet-stream",
      [UNPACKED]: "gzip" };
    await Promise.all([cache.put(urlOf(path), response),
      cache.put(unpackedKey(path), new Response(inflated, { headers })).catch(() => {})]);
  }

  /** @param {string} path */
  function unpackedKey(path) {
    return `${urlOf(path)}?unpacked=${release.files[path]}`;
  }

  /** @param {Response} response @param {string} path */
  async function belongs(response, path) {
    if (!response.ok || response.redirected) return false;
    const digest = await crypto.subtle.digest("SHA-256", await response.arrayBuffer());
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    return hex.startsWith(release.files[path]);
  }

  // The manifest path a URL of this site stands for (a folder URL is its index.html), or
  // null when the URL is not a file of this release.
  /** @param {string} url @returns {string | null} */
  function pathOf(url) {
    const { origin, pathname } = new URL(url);
    if (origin !== SCOPE.origin || !pathname.startsWith(SCOPE.pathname)) return null;
    let path = decodeURIComponent(pathname.slice(SCOPE.pathname.length));
    if (path === "" || path.endsWith("/")) path += "index.html";
    return Object.hasOwn(release.files, path) ? path : null;
  }

  /** @param {string} path */
  function urlOf(path) {
    const url = new URL(path.split("/").map(encodeURIComponent).join("/"), SCOPE);
    if (url.pathname.endsWith("/index.html")) url.pathname = url.pathname.slice(0, -10);
    return url.href;
  }

  function offlinePage() {
    return new Response(
      "You are offline, and this page of Ridgepoint was not saved on an earlier visit. " +
        "Pages you have opened before, and their simulations, work offline.",
      { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } },
    );
  }
}

/** @param {(name: string) => boolean} which */
async function dropCaches(which) {
  const names = (await caches.keys()).filter((name) => name.startsWith(CACHE_PREFIX));
  await Promise.all(names.filter(which).map((name) => caches.delete(name)));
}
