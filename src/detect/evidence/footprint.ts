/**
 * How far from a venue's point its visitors' stays are centred, learned online per app and per
 * venue type. The store's radius is a guess from the type (or the geometry) and does not say where
 * people stand: a car park's visitors spread over its lot, a fountain's gather at it. Every
 * confirmed stay measures the spread of the types it was ranked to: at distance d from a venue,
 * with a centre of per-axis error σ, E[d²] = 2(σ² + V), V the footprint's per-axis variance, so
 * each stay offers d²/2 − σ², weighted by the venue's probability (an EM step over the ranking).
 * The store's capped radius is the prior, worth PRIOR_STAYS stays of that type.
 *
 * Per-thread counts merge into LMDB every FLUSH_EVERY stays (sparse-table.ts), as the learned
 * kind priors do, so the tables are shared by the workers and survive restarts.
 */
import { sparseTable, type SparseSync, type SparseTable } from './sparse-table.js';

import type { FootprintParams } from '../params.js';

export type { SparseSync } from './sparse-table.js';

/** Smallest footprint variance (m²): a point venue still has a door and a counter. */
const MIN_VAR = 4;
/** One stay's offer is clipped at this many times the current variance (a wrong label, a jump). */
const CLIP = 9;

/** Per type: [weight, Σ weight · (d²/2 − σ²)] at keys 2·type_id and 2·type_id + 1. */
const TABLE = 'footprint';

/** The footprint radius to rank with (the radius of a uniform disc of the learned variance). */
export function learnedRadius(app: string, sync: SparseSync, typeId: number, priorRadius: number, fp: FootprintParams): number {
  return fp.on ? radiusIn(footprintTable(app, sync), typeId, priorRadius, fp) : priorRadius;
}

/** The app's footprint table, for `radiusIn`: ranking asks it once a stay rather than once a candidate. */
export const footprintTable = (app: string, sync: SparseSync): SparseTable => sparseTable(TABLE, app, sync);

/** `learnedRadius` from the app's table (footprintTable), fp.on. */
export function radiusIn(t: SparseTable, typeId: number, priorRadius: number, fp: FootprintParams): number {
  const w = t.get(2 * typeId);
  if (w === 0) return priorRadius;
  const B = fp.priorStays;
  const v = (t.get(2 * typeId + 1) + B * (priorRadius * priorRadius) / 4) / (w + B);
  return 2 * Math.sqrt(Math.max(MIN_VAR, v));
}

export interface FootprintSample { typeId: number; probability: number; distance: number; radius: number }

/** A confirmed stay with a centre of per-axis error `sigma` teaches its likely venues' types. */
export function learnFootprints(app: string, sync: SparseSync, sigma: number, samples: readonly FootprintSample[], fp: FootprintParams): void {
  if (!fp.on || samples.length === 0) return;
  const t = sparseTable(TABLE, app, sync);
  const s2 = sigma * sigma;
  for (const s of samples) {
    if (!(s.probability > 0.05)) continue;
    const cur = (s.radius * s.radius) / 4;
    const offer = Math.min((s.distance * s.distance) / 2 - s2, CLIP * (cur + s2));
    t.add(2 * s.typeId, s.probability);
    t.add(2 * s.typeId + 1, s.probability * offer);
  }
  t.stayDone(fp.flushEvery);
}
