/**
 * A request's fixes as the place matcher reads them: columns of time, position and accuracy, and
 * what an event repeats of its fix (the timestamp as sent, the location). Built from the request's
 * signals with the times detection already parsed (integrity's checks keep them: Checks.times),
 * so the matcher neither parses a timestamp again nor makes an object a fix; or from Fix objects
 * (the tests), parsing their times. The columns are this thread's scratch, reused by the next
 * request: a detection thread evaluates one request at a time, and nothing here outlives the call.
 */
import type { Fix } from '../geofences/events.js';
import type { Signal } from '../schemas/detect-request.js';
import { stampMs } from '../time/stamp.js';

/** What an event says of its fix's position: a Fix, or a signal's location. */
export interface Located { lat: number; long: number; accuracy?: number }

/** A request's signals in request order and each one's time (ms), as integrity's checks keep them. */
export interface TimedSignals { signals: readonly Signal[]; times: ArrayLike<number> }

export interface FixColumns {
  n: number;
  /** Time (ms; NaN when unreadable), position, accuracy (0 when not given) of fix i. */
  t: Float64Array; lat: Float64Array; lon: Float64Array; acc: Float64Array;
  stamp: string[]; at: Located[];
  /** Fix indexes in time order (inTimeOrder). */
  ord: Int32Array;
}

let cols: FixColumns = alloc(64);

function alloc(cap: number): FixColumns {
  return { n: 0, t: new Float64Array(cap), lat: new Float64Array(cap), lon: new Float64Array(cap), acc: new Float64Array(cap), stamp: [], at: [], ord: new Int32Array(cap) };
}

function sized(n: number): FixColumns {
  if (cols.t.length < n) cols = alloc(Math.max(n, cols.t.length * 2));
  cols.stamp.length = 0;
  cols.at.length = 0;
  return cols;
}

function put(c: FixColumns, k: number, t: number, stamp: string, at: Located): void {
  c.t[k] = t; c.lat[k] = at.lat; c.lon[k] = at.long; c.acc[k] = at.accuracy ?? 0;
  c.stamp.push(stamp);
  c.at.push(at);
}

/** The located signals as fixes; `times` are the signals' own, one a signal. */
export function columnsOfSignals({ signals, times }: TimedSignals): FixColumns {
  const c = sized(signals.length);
  let k = 0;
  for (let i = 0; i < signals.length; i++) {
    const s = signals[i], loc = s.location;
    if (loc) put(c, k++, times[i], s.timestamp, loc);
  }
  c.n = k;
  return c;
}

export function columnsOfFixes(fixes: readonly Fix[]): FixColumns {
  const c = sized(fixes.length);
  for (let i = 0; i < fixes.length; i++) put(c, i, stampMs(fixes[i].timestamp), fixes[i].timestamp, fixes[i]);
  c.n = fixes.length;
  return c;
}

/**
 * Fills `ord` with the fixes later than `after` (and, given `only`, at exactly that time), in time
 * order, fixes of equal time in request order (a stable sort, as Array.prototype.sort); answers
 * how many. A request's fixes come nearly in order: an insertion sort.
 */
export function inTimeOrder(c: FixColumns, after: number, only = NaN): number {
  const { t, ord } = c;
  let m = 0;
  for (let i = 0; i < c.n; i++) {
    const ti = t[i];
    if (!(ti > after) || ti === Infinity || (only === only && ti !== only)) continue;
    let k = m++;
    while (k > 0 && t[ord[k - 1]] > ti) { ord[k] = ord[k - 1]; k--; }
    ord[k] = i;
  }
  return m;
}
