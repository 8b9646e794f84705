/**
 * The last request's signal times, parsed once a request. Validation reads every signal's stamp
 * anyway (it checks each against its event), so it hands the times on (`knowTimes`); the integrity
 * checks and detection's fixes then read them here instead of scanning the stamps again (a third
 * of a request's 74 scans on bench:http's bodies). Whichever reads a list first when nothing
 * handed it on parses it and keeps it. A list is known when it holds the same signal objects as
 * the known one, or a run of them (a structured event's); a worker runs one request at a time,
 * and a new request's signals are new objects, so nothing stale can match.
 */
import { stampMs } from './stamp.js';

type Signals = ReadonlyArray<{ timestamp: string }>;

let known: { signals: Signals; times: Float64Array } = { signals: [], times: new Float64Array(0) };

/** `times[i]` is the instant (ms) of `signals[i]`, as stampMs reads it. */
export function knowTimes(signals: Signals, times: Float64Array): void {
  known = { signals, times };
}

/** Where `signals` starts in the known list, when they are a run of it; else -1. */
export function knownAt(signals: Signals): number {
  const k = known.signals;
  if (k === signals) return 0;
  const n = signals.length, at = n ? k.indexOf(signals[0]) : -1;
  if (at < 0 || at + n > k.length) return -1;
  for (let i = 1; i < n; i++) if (k[at + i] !== signals[i]) return -1;
  return at;
}

/** The known times, for a run found by `knownAt`. */
export const knownTimes = (): Float64Array => known.times;

/** Every signal's time (ms), in order: the known times when `signals` are the known list, else parsed now and known from here on. */
export function timesOf(signals: Signals): Float64Array {
  if (known.signals === signals || (signals.length === known.signals.length && knownAt(signals) === 0)) return known.times;
  const times = new Float64Array(signals.length);
  for (let i = 0; i < signals.length; i++) times[i] = stampMs(signals[i].timestamp);
  known = { signals, times };
  return times;
}
