/**
 * Kind × hour-of-week, dwell-by-kind and indoor share by kind, learned online per app from
 * confirmed stays. The hand tables of priors.ts and indoor.ts are the Dirichlet prior (worth
 * PRIOR_VISITS visits per kind); every confirmed stay then adds its ranking's probability mass to
 * the kinds of its top venues at the stay's hour (and its neighbours, for smoothness), dwell bin
 * and indoor look. So a city whose cafés fill at
 * 8 and whose bars at 22 teaches that within a few hundred visits, without tables to maintain.
 *
 * Each thread counts in memory and merges its new counts into LMDB every FLUSH_EVERY stays
 * (read, add, write in one transaction), taking back what the other threads taught: counts
 * survive restarts and are shared by a server's workers.
 */
import { KIND_COUNT } from '../kinds.js';
import { dwellLog, timeOfWeekLog } from './priors.js';
import { HAND_INDOOR, indoorLog } from './indoor.js';
import type { LearnedParams } from '../params.js';

export const HOURS = 168;
/** Dwell bins: log2 of minutes, [<2, 2-4, 4-8, …, ≥ 512]. */
export const DWELL_BINS = 10;
/** Per kind, [indoor-looking mass, mass of stays whose look is known]: appended last, so older stored tables still merge. */
const INDOOR_OFF = KIND_COUNT * (HOURS + DWELL_BINS);
export const TABLE_SIZE = INDOOR_OFF + 2 * KIND_COUNT;
const DWELL_OFF = KIND_COUNT * HOURS;

export const dwellBin = (dwellS: number): number => Math.max(0, Math.min(DWELL_BINS - 1, Math.floor(Math.log2(Math.max(60, dwellS) / 60))));
const binMid = (b: number): number => 60 * 2 ** (b + 0.5);

/** Hand-table probabilities per cell, normalised per kind (the prior's shape). */
const HAND = new Float64Array(TABLE_SIZE);
for (let k = 0; k < KIND_COUNT; k++) {
  let s = 0;
  for (let h = 0; h < HOURS; h++) s += HAND[k * HOURS + h] = Math.exp(timeOfWeekLog(k, h));
  for (let h = 0; h < HOURS; h++) HAND[k * HOURS + h] /= s;
  s = 0;
  for (let b = 0; b < DWELL_BINS; b++) s += HAND[DWELL_OFF + k * DWELL_BINS + b] = Math.exp(dwellLog(k, binMid(b)));
  for (let b = 0; b < DWELL_BINS; b++) HAND[DWELL_OFF + k * DWELL_BINS + b] /= s;
}

export interface PriorSync {
  /** Adds `pending` to the app's stored counts and answers the merged table. */
  mergePriors(app: string, pending: Float64Array): Float64Array;
}

interface AppTables { base: Float64Array; pending: Float64Array; stays: number; kTow: Float64Array; kDwell: Float64Array; dirty: boolean }
/** Per user store (one per data directory), per app. */
const stores = new WeakMap<PriorSync, Map<string, AppTables>>();

function tables(app: string, sync: PriorSync): AppTables {
  let apps = stores.get(sync);
  if (!apps) stores.set(sync, (apps = new Map()));
  let t = apps.get(app);
  if (!t) {
    const pending = new Float64Array(TABLE_SIZE);
    t = { base: sync.mergePriors(app, pending), pending, stays: 0, kTow: new Float64Array(KIND_COUNT), kDwell: new Float64Array(KIND_COUNT), dirty: true };
    apps.set(app, t);
  }
  if (t.dirty) {
    for (let k = 0; k < KIND_COUNT; k++) {
      let a = 0, b = 0;
      for (let h = 0; h < HOURS; h++) a += t.base[k * HOURS + h] + t.pending[k * HOURS + h];
      for (let d = 0; d < DWELL_BINS; d++) b += t.base[DWELL_OFF + k * DWELL_BINS + d] + t.pending[DWELL_OFF + k * DWELL_BINS + d];
      t.kTow[k] = a; t.kDwell[k] = b;
    }
    t.dirty = false;
  }
  return t;
}

const cell = (t: AppTables, i: number) => t.base[i] + t.pending[i];

/** log P(hour | kind) × 168, learned (the hand table when nothing is learned yet). */
export function learnedTowLog(app: string, sync: PriorSync, kind: number, hour: number, L: LearnedParams): number {
  const t = tables(app, sync);
  const A = L.priorVisits;
  const i = kind * HOURS + hour;
  return Math.log(((cell(t, i) + A * HAND[i]) / (t.kTow[kind] + A)) * HOURS);
}

/** log p(dwell bin | kind) × bins, learned. */
export function learnedDwellLog(app: string, sync: PriorSync, kind: number, dwellS: number, L: LearnedParams): number {
  if (!(dwellS > 0)) return 0;
  const t = tables(app, sync);
  const A = L.priorVisits;
  const i = DWELL_OFF + kind * DWELL_BINS + dwellBin(dwellS);
  return Math.log(((cell(t, i) + A * HAND[i]) / (t.kDwell[kind] + A)) * DWELL_BINS);
}

/** log P(the fixes' indoor look | kind), with the kind's indoor share learned. */
export function learnedIndoorLog(app: string, sync: PriorSync, kind: number, share: number, L: LearnedParams): number {
  if (Number.isNaN(share)) return 0;
  const t = tables(app, sync);
  const A = L.priorVisits;
  const i = INDOOR_OFF + 2 * kind;
  return indoorLog((cell(t, i) + A * HAND_INDOOR[kind]) / (cell(t, i + 1) + A), share);
}

/** A confirmed stay teaches: its top venues' kinds, weighted by their probability. */
export function learnPriors(app: string, sync: PriorSync, kinds: readonly number[], probs: readonly number[], hour: number, dwellS: number, indoor: number, L: LearnedParams): void {
  const t = tables(app, sync);
  const b = dwellBin(dwellS);
  for (let j = 0; j < kinds.length; j++) {
    const k = kinds[j], p = probs[j];
    if (!(p > 0.05)) continue;
    // The stay's hour and its neighbours (half weight): hours are a smooth thing.
    t.pending[k * HOURS + hour] += p * 0.5;
    t.pending[k * HOURS + ((hour + 1) % HOURS)] += p * 0.25;
    t.pending[k * HOURS + ((hour + HOURS - 1) % HOURS)] += p * 0.25;
    t.pending[DWELL_OFF + k * DWELL_BINS + b] += p;
    if (!Number.isNaN(indoor)) { t.pending[INDOOR_OFF + 2 * k] += p * indoor; t.pending[INDOOR_OFF + 2 * k + 1] += p; }
    // The kind's totals follow along (the hour's three shares sum to p): recounting all 178
    // cells of every kind after each stay cost 10 µs a request (bench/http-task profile).
    t.kTow[k] += p; t.kDwell[k] += p;
  }
  if (++t.stays >= L.flushEvery) {
    t.base = sync.mergePriors(app, t.pending);
    t.pending.fill(0);
    t.stays = 0;
    t.dirty = true;
  }
}
