// vega-interpreter as the build stages it into assets/vendor/ (ridgepoint/runtime.py): its
// interpreter and, added by the staging, the tables expressions.js evaluates with. Each
// table is vega-interpreter's own; only the shapes expressions.js relies on are declared.

type VegaFunction = (this: object, ...args: any[]) => unknown;

export const Constants: Record<string, unknown>;
export const DisallowedMethods: Set<unknown>;
export const DisallowedObjectProperties: Set<unknown>;
export const EventFunctions: string[];
export const Functions: Record<string, VegaFunction>;
export const Ops: Record<string, ((a: any, b: any) => unknown) | undefined>;
export const Unary: Record<string, ((a: any) => unknown) | undefined>;
export function adjustSpatial(item: object, channels: object, swap: boolean): void;
export function expressionInterpreter(...args: unknown[]): unknown;
