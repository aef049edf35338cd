// What the page's scripts find at run time that no file in content/assets/ declares.

// Set on the page by others: the browser tests (a shorter run watchdog), and Material's
// bundle (instant navigation).
interface Window {
  ridgepointRunTimeoutMs?: number;
  ridgepointAhead?: boolean;
  document$?: { subscribe(next: () => void): unknown };
}

// The Network Information API's Save-Data hint (Chromium; absent elsewhere).
interface Navigator {
  connection?: { saveData?: boolean };
}

// The chart library's UMD builds set these globals (charts.js imports them as modules).
// Only what the page calls is declared: a Vega view, kept and given new data, or drawn into
// a file.
interface VegaChangeset {
  insert(tuples: object[]): VegaChangeset;
  remove(tuples: object[] | ((tuple: object) => boolean)): VegaChangeset;
  modify(tuple: object, field: string, value: unknown): VegaChangeset;
}

interface VegaView {
  runAsync(): Promise<VegaView>;
  finalize(): VegaView;
  signal(name: string, value: unknown): VegaView;
  height(pixels: number): VegaView;
  width(pixels: number): VegaView;
  resize(): VegaView;
  data(name: string): object[];
  changeset(): VegaChangeset;
  change(name: string, changes: VegaChangeset): VegaView;
  tooltip(): VegaTooltipHandler;
  tooltip(handler: VegaTooltipHandler): VegaView;
  initialize(container: HTMLElement): VegaView;
  // Drawn afresh, off screen, for a file (chartfile.js).
  toSVG(scaleFactor?: number): Promise<string>;
  toCanvas(scaleFactor?: number): Promise<HTMLCanvasElement>;
}

// Called with the scenegraph's event handler, the event, the item pointed at (null to hide)
// and the item's tooltip value.
type VegaTooltipHandler = (handler: object, event: Event | null, item: object | null, value: unknown) => void;

interface VegaViewOptions {
  expr: object;
  renderer: "svg" | "canvas" | "none";
  container?: HTMLElement;
  hover: boolean;
}

declare var vega: {
  parse(spec: object, config: object | null, options: { ast: boolean }): object;
  View: new (runtime: object, options: VegaViewOptions) => VegaView;
};

declare var vegaLite: {
  compile(spec: object): { spec: object };
};
