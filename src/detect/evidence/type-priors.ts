/**
 * Hour of day, dwell and indoor share per venue type, learned online per app and shrunk to the
 * type's kind. The kind tables (learned-priors.ts) pool types that people use differently: an
 * artwork and a theatre are both "culture", a car park and a subway station both "transit", and
 * a store that maps categories its own way pools them its own way. A type with enough confirmed
 * stays gets its own shape; one with few keeps its kind's. The score is the type's refinement
 * only, log P_type(x) − log P_kind(x), added to the kind's own factors, so a type nothing has
 * taught scores 0.
 *
 * Hours of the day (24), not of the week (168): per type the week is too sparse, and the kind
 * tables keep the weekday pattern. Counted per thread, merged into LMDB every FLUSH stays
 * (sparse-table.ts), like the footprints.
 */
import { sparseTable, type SparseSync } from './sparse-table.js';
import { dwellBin, DWELL_BINS } from './learned-priors.js';
import { indoorLog } from './indoor.js';
import type { TypePriorParams } from '../params.js';

const H = 24;
/** Per row: 24 hours, 10 dwell bins, [indoor mass, known-look mass], total. */
const IND = H + DWELL_BINS;
const TOT = IND + 2;
const STRIDE = TOT + 1;
/** Kinds are rows 0…15, types follow (type_id + 16), so one table holds both levels. */
const KIND_ROWS = 16;
const TABLE = 'typeprior';
/** The kind level's own flat prior, in stays: it only sets where a type shrinks to. */
const KIND_PRIOR = 5;

const typeRow = (typeId: number) => (typeId + KIND_ROWS) * STRIDE;
const kindRow = (kind: number) => kind * STRIDE;

/** log P_type / P_kind of the stay's hour of day, dwell and indoor look; 0 while the type is untaught. */
export function typeRefinement(app: string, sync: SparseSync, typeId: number, kind: number, hourOfWeek: number, dwellS: number, indoor: number, P: TypePriorParams): number {
  if (!P.on) return 0;
  const t = sparseTable(TABLE, app, sync);
  const tr = typeRow(typeId), nT = t.get(tr + TOT);
  if (nT === 0) return 0;
  const kr = kindRow(kind), nK = t.get(kr + TOT);
  const B = P.priorStays;
  let s = 0;
  if (P.hour) {
    const h = hourOfWeek % H;
    const pk = (t.get(kr + h) + KIND_PRIOR / H) / (nK + KIND_PRIOR);
    const pt = (t.get(tr + h) + B * pk) / (nT + B);
    s += P.hour * Math.log(pt / pk);
  }
  if (P.dwell && dwellS > 0) {
    const b = H + dwellBin(dwellS);
    const pk = (t.get(kr + b) + KIND_PRIOR / DWELL_BINS) / (nK + KIND_PRIOR);
    const pt = (t.get(tr + b) + B * pk) / (nT + B);
    s += P.dwell * Math.log(pt / pk);
  }
  if (P.indoor && !Number.isNaN(indoor)) {
    const sk = (t.get(kr + IND) + KIND_PRIOR * 0.5) / (t.get(kr + IND + 1) + KIND_PRIOR);
    const st = (t.get(tr + IND) + B * sk) / (t.get(tr + IND + 1) + B);
    s += P.indoor * (indoorLog(st, indoor) - indoorLog(sk, indoor));
  }
  return s;
}

export interface TypeSample { typeId: number; kind: number; probability: number }

/** A confirmed stay teaches its likely venues' types and kinds, weighted by their probability. */
export function learnTypePriors(app: string, sync: SparseSync, samples: readonly TypeSample[], hourOfWeek: number, dwellS: number, indoor: number, P: TypePriorParams): void {
  if (!P.on || samples.length === 0) return;
  const t = sparseTable(TABLE, app, sync);
  const h = hourOfWeek % H, b = H + dwellBin(dwellS);
  for (const x of samples) {
    const p = x.probability;
    if (!(p > 0.05)) continue;
    for (const row of [typeRow(x.typeId), kindRow(x.kind)]) {
      // The hour and its neighbours at half weight, as the kind × hour table does.
      t.add(row + h, p * 0.5);
      t.add(row + ((h + 1) % H), p * 0.25);
      t.add(row + ((h + H - 1) % H), p * 0.25);
      t.add(row + b, p);
      if (!Number.isNaN(indoor)) { t.add(row + IND, p * indoor); t.add(row + IND + 1, p); }
      t.add(row + TOT, p);
    }
  }
  t.stayDone(P.flushEvery);
}
