// What the workers' scripts find at run time that no file in content/ declares.

// worker.js's record of how Python started, read by the browser tests and the bench.
declare var ridgepoint: {
  python: Promise<unknown>;
  start: {
    via: "snapshot" | "fresh" | null;
    reason: string | null;
    snapshotModules: string[];
    fromCache: string[]; // runtime files read inflated from the service worker's cache
    marks: Record<string, number>;
  };
  warmRuns: number;
};

// The Network Information API as a worker reads it (Chromium; absent elsewhere): the
// browser's own rating of the connection, from the round trips it has measured, and the
// reader's Save-Data hint.
interface WorkerNavigator {
  connection?: { effectiveType?: string; saveData?: boolean };
}
