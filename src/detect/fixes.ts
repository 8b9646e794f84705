/**
 * Location fixes of a signal list as columns. Scratch columns are reused across calls: a worker
 * runs one detection at a time, and hot paths then allocate nothing per fix.
 */
import type { Signal } from '../schemas/detect-request.js';
import { knownAt, knownTimes, timesOf } from '../time/signal-times.js';

export interface Fixes {
  n: number;
  t: Float64Array; lat: Float64Array; lon: Float64Array; acc: Float64Array;
  /** m/s; NaN when unknown (absent or -1). */
  speed: Float64Array;
  /** Index of the signal each fix came from. */
  src: Int32Array;
}

export function allocFixes(cap: number): Fixes {
  return { n: 0, t: new Float64Array(cap), lat: new Float64Array(cap), lon: new Float64Array(cap),
    acc: new Float64Array(cap), speed: new Float64Array(cap), src: new Int32Array(cap) };
}

/** Accuracy assumed when a fix reports none: a poor but not hopeless fix. */
export const DEFAULT_ACCURACY = 50;

let scratch = allocFixes(256);

/** Fixes of the signals in time order. The result is valid until the next call. */
export function fixesOf(signals: readonly Signal[]): Fixes {
  if (scratch.t.length < signals.length) scratch = allocFixes(Math.max(signals.length, scratch.t.length * 2));
  const f = scratch;
  let n = 0, sorted = true, last = -Infinity;
  let at = knownAt(signals);
  const times = at < 0 ? timesOf(signals) : knownTimes();
  if (at < 0) at = 0;
  for (let i = 0; i < signals.length; i++) {
    const s = signals[i];
    const loc = s.location;
    if (!loc) continue;
    const t = times[at + i];
    if (t < last) sorted = false;
    last = t;
    f.t[n] = t; f.lat[n] = loc.lat; f.lon[n] = loc.long;
    f.acc[n] = loc.accuracy !== undefined && loc.accuracy > 0 ? loc.accuracy : DEFAULT_ACCURACY;
    f.speed[n] = loc.speed !== undefined && loc.speed >= 0 ? loc.speed : NaN;
    f.src[n] = i;
    n++;
  }
  f.n = n;
  if (!sorted) sortFixes(f);
  return f;
}

function sortFixes(f: Fixes): void {
  const idx = Array.from({ length: f.n }, (_, i) => i).sort((a, b) => f.t[a] - f.t[b]);
  for (const col of [f.t, f.lat, f.lon, f.acc, f.speed] as Float64Array[]) {
    const copy = col.slice(0, f.n);
    for (let i = 0; i < f.n; i++) col[i] = copy[idx[i]];
  }
  const src = f.src.slice(0, f.n);
  for (let i = 0; i < f.n; i++) f.src[i] = src[idx[i]];
}
