/**
 * What crosses between the HTTP thread (sweep-thread.ts) and the retention sweep's thread
 * (workers/sweep.ts): kept apart from both so neither imports the other.
 */
import type { SweepCounts } from './retention.js';

/** What the thread is started with (workerData). */
export interface SweepThreadInit {
  dataDir: string;
  userRetentionMs: number;
  deadRetentionMs: number;
  intervalMs: number;
  /** The touch slot width, as openPrivacyStores records it. */
  slotMs: number;
  /** Int32Array[0]: requests in flight, written by the HTTP thread only. */
  inflight: SharedArrayBuffer;
  /** The server's movable clock (time/clock.ts), when tests move time; unset: the real clock. */
  clock?: SharedArrayBuffer;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

export type FromSweep = { type: 'started' } | { type: 'removed'; counts: SweepCounts } | { type: 'stopped' };
export type ToSweep = { type: 'stop' };
