/**
 * Venue ranking: a log-linear model over the candidates near the stay's centre. Each factor is
 * a log likelihood (ratio) in nats; their sum is a posterior score, and a softmax with a
 * calibration temperature turns scores into probabilities. A "none of these" outcome competes
 * with the venues, so that evidence which fits no venue well lowers every probability.
 */
import type { Venue, VenueStore } from './venue.js';
import { KIND_COUNT, kindOf } from './kinds.js';
import { gpsLogLik } from './evidence/gps.js';
import { dwellLog, popularityLog, timeOfWeekLog } from './evidence/priors.js';
import { learnedDwellLog, learnedIndoorLog, learnedTowLog, type PriorSync } from './evidence/learned-priors.js';
import { HAND_INDOOR, indoorLog } from './evidence/indoor.js';
import { pooledBest, pooledLog, ssidEvidence, ssidLog, type PooledAp, type WifiHeard } from './evidence/wifi.js';
import { historyLog, labelScores, nearbyStays } from './evidence/history.js';
import { footprintTable, radiusIn, type SparseSync } from './evidence/footprint.js';
import { countedBonus } from './evidence/counted-prior.js';
import { typeRefinement } from './evidence/type-priors.js';
import { beaconScores, type StayBeacons } from './evidence/beacons.js';
import { learnedBeaconScores } from './evidence/learned-beacons.js';
import type { ModelParams, Weights } from './params.js';
import { KIND_PARTS, noted, recorder } from './rank-recorder.js';

export type { RankRecorder } from './rank-recorder.js';
export { recording } from './rank-recorder.js';

export interface RankInput {
  lat: number; lon: number;
  /** Per-axis standard error of the centre, metres. */
  sigma: number;
  dwellS: number;
  hourOfWeek: number;
  /** How likely the fixes were taken indoors (indoor.ts); NaN when unknown. */
  indoor: number;
  heard: readonly WifiHeard[];
  /** Where learned kind priors and footprints live (absent: the hand tables, the store's radius). */
  priors?: { app: string; sync: PriorSync & SparseSync };
  /** Pooled evidence of joined networks (wifi.ts), parallel to `heard`. */
  pooled?: ReadonlyArray<PooledAp | undefined>;
  /** The user's past stays (records.ts `v`), undefined without a user. */
  history: readonly number[] | undefined;
  /** Labels of those stays (records.ts `t`). */
  labels?: ReadonlyArray<string | number>;
  /** Beacons heard, registered and learned, when the device ranged beacons (evidence/beacons.ts). */
  beacons?: StayBeacons;
}

export interface RankedVenue { venue: Venue; distance: number; probability: number }

/** A stay's best candidates by its own evidence (GPS, hour of week, dwell), [id, log likelihood relative to the best, …], for pooling. */
export type GpsMemo = Array<string | number>;
export const POOL_CANDIDATES = 8;

/**
 * The nearest 32 venues are ranked. 40 → 32: offline top1 within 0.1 point on NYC s1–s3, h2, u2,
 * u3 and Monaco s1, m2, m3, and bench/http-task 0.586 → 0.557 ms a request; 24 cost Monaco s1
 * 0.9 points (top3 1.1, ECE 0.019 → 0.027); 80 gained nothing.
 */
export const MAX_CANDIDATES = 32;
export const MAX_ANSWERED = 10;
const score = new Float64Array(MAX_CANDIDATES);
const gpsScore = new Float64Array(MAX_CANDIDATES);
const order = new Int32Array(MAX_CANDIDATES);
const poolBest = new Float64Array(64);
const stays = new Float64Array(3 * 128);
const labelScore = new Float64Array(MAX_CANDIDATES);
const stayIdx = new Int32Array(128);
const kindScore = new Float64Array(KIND_COUNT);
/** kindLog's terms per kind, [hour of week, dwell, indoor look], for an explanation. */
const kindParts = new Float64Array(KIND_COUNT * KIND_PARTS.length);
/**
 * typeRefinement by (type, kind) for the stay being ranked: its candidates share types, and each
 * call is some ten lookups in the app's learned tables (1 % of a request's instructions,
 * bench:instructions). A slot is current when its stamp is the rank call's; type ids past the
 * table (taxonomy.json has 1,245) are simply not kept. 360 KB a thread.
 */
const TYPE_SLOTS = 2048 * KIND_COUNT;
const typeValue = new Float64Array(TYPE_SLOTS);
const typeStamp = new Int32Array(TYPE_SLOTS);
let rankCall = 0;
const beaconScore = new Float64Array(MAX_CANDIDATES + 1);
const learnedBeaconScore = new Float64Array(MAX_CANDIDATES);

/**
 * The footprint the GPS likelihood uses: the store's radius, capped. Stores give generous
 * half-widths to large places (a park 120 m, a university 300 m), but visits to them gather near
 * where the point was placed (the entrance, the main building), so the full disc spreads the
 * likelihood too thin.
 */
export const footprint = (r: number, w: Weights): number => (r > 0 ? Math.min(r, w.maxRadius) : 15);

/** Search radius: far enough for a large footprint under a poor centre, bounded for speed. */
export const searchRadius = (sigma: number): number => Math.min(1500, Math.max(150, 4 * sigma + 100));

/** Ranks the venues near the stay under the model parameters `p` (params.ts). */
export function rank(store: VenueStore, q: RankInput, p: ModelParams): { venues: RankedVenue[]; none: number; gps: GpsMemo } {
  let cands = store.near(q.lat, q.lon, searchRadius(q.sigma), MAX_CANDIDATES);
  const W = p.weights;
  if (cands.length === 0 && W.wideSearch) cands = store.near(q.lat, q.lon, W.wideSearch, MAX_CANDIDATES);
  const n = Math.min(cands.length, MAX_CANDIDATES);
  const rec = recorder();
  rec?.begin(q, W.temperature);
  if (n === 0) return { venues: [], none: 1, gps: [] };
  const pooled = W_pooled(q, W);
  for (let j = 0; j < pooled; j++) { const a = q.pooled![j]; poolBest[j] = a ? pooledBest(a) : 0; }
  const lp = W.learnedPriors && q.priors ? q.priors : undefined;
  let max = W.none;
  const nStays = W.history || W.labels ? nearbyStays(q.history, q.lat, q.lon, stays, stayIdx) : 0;
  const ssids = W.ssid ? ssidEvidence(q.heard) : [];
  // The same for every counted candidate: worked out once, not per candidate.
  const counted = q.priors ? countedBonus(q.priors.app, q.priors.sync, store, p.counted) : 0;
  const footprints = q.priors && p.footprint.on ? footprintTable(q.priors.app, q.priors.sync) : undefined;
  // 15 kinds against 32 candidates: what the stay says of a kind is worked out once per kind.
  kindScore.fill(NaN);
  if (++rankCall === 0x7fffffff) { rankCall = 1; typeStamp.fill(0); }
  const labelled = W.labels && nStays && q.labels ? labelScores(stays, stayIdx, nStays, q.labels, q.lat, q.lon, q.sigma, W.labelSpread, W.labelPrior, cands, n, labelScore) : false;
  const B = p.beacons;
  const beaconed = q.beacons && B.on && B.weight ? beaconScores(q.beacons, cands, n, B, beaconScore) : false;
  const learnedBeacons = q.beacons?.learned.length && B.on && B.learnedWeight ? learnedBeaconScores(q.beacons.learned, cands, n, B, learnedBeaconScore) : false;
  for (let i = 0; i < n; i++) {
    const { venue: v, distance } = cands[i];
    const kind = kindOf(v);
    // What this stay alone says of the venue (pooled under joined networks): place, hour, length.
    const radius = footprints ? radiusIn(footprints, v.type_id, footprint(v.radius, W), p.footprint) : footprint(v.radius, W);
    let ofKind = kindScore[kind];
    if (ofKind !== ofKind) ofKind = kindScore[kind] = kindLog(q, lp, kind, p);
    // A venue whose source counts visits takes the hour-of-week term times timeCounted: noted as the same factor, so explain adds up.
    const isCounted = v.popularity >= 0;
    const towExtra = isCounted && W.timeCounted !== 1 ? (W.timeCounted - 1) * kindParts[kind * KIND_PARTS.length] : 0;
    ofKind += towExtra;
    if (rec) for (let k = 0; k < KIND_PARTS.length; k++) rec.factor(i, KIND_PARTS[k], kindParts[kind * KIND_PARTS.length + k] + (k === 0 ? towExtra : 0));
    // Every term below goes through noted(): the identity in detection, an explanation's record when explaining.
    if (lp && W.type) {
      const slot = v.type_id * KIND_COUNT + kind;
      let t: number;
      if (slot < TYPE_SLOTS && typeStamp[slot] === rankCall) t = typeValue[slot];
      else {
        t = typeRefinement(lp.app, lp.sync, v.type_id, kind, q.hourOfWeek, q.dwellS, q.indoor, p.typePriors);
        if (slot < TYPE_SLOTS) { typeValue[slot] = t; typeStamp[slot] = rankCall; }
      }
      ofKind += noted(rec, i, 'type', W.type * t);
    }
    const own = noted(rec, i, 'distance', W.gps * gpsLogLik(distance, q.sigma, radius)) + ofKind;
    gpsScore[i] = own;
    let s = own;
    if (W.popularity) s += noted(rec, i, 'popularity', W.popularity * popularityLog(v.popularity));
    if (v.popularity >= 0) s += noted(rec, i, 'counted', W.counted * counted);
    if (ssids.length) s += noted(rec, i, 'wifi_names', W.ssid * ssidLog(ssids, v));
    for (let j = 0; j < pooled; j++) { const a = q.pooled![j]; if (a) s += noted(rec, i, 'wifi_networks', W.pooledAp * pooledLog(a, poolBest[j], v.id)); }
    if (nStays && W.history) s += noted(rec, i, 'history', W.history * historyLog(stays, nStays, v.lat, v.lon, radius));
    if (labelled) s += noted(rec, i, 'history_labels', W.labels * (isCounted ? W.labelsCounted : 1) * labelScore[i]);
    if (beaconed) s += noted(rec, i, 'beacons', B.weight * beaconScore[i]);
    if (learnedBeacons) s += noted(rec, i, 'beacons_learned', B.learnedWeight * learnedBeaconScore[i]);
    score[i] = s;
    rec?.scored(i, v, distance, radius, s);
    if (s > max) max = s;
  }
  // The "none" score sits relative to the best candidate's geometry alone: a fixed offset from
  // the best-fitting footprint, so that it wins only when no venue fits the fixes.
  let noneScore = noted(rec, -1, 'distance', W.gps * gpsLogLik(0, q.sigma, 60)) + noted(rec, -1, 'none', W.none);
  // A registered beacon heard as if inside speaks against "none of these" too (evidence/beacons.ts).
  if (beaconed && beaconScore[n] !== 0) noneScore += noted(rec, -1, 'beacons', B.weight * beaconScore[n]);
  rec?.scoredNone(noneScore);
  if (noneScore > max) max = noneScore;
  const T = W.temperature;
  let sum = Math.exp((noneScore - max) / T);
  for (let i = 0; i < n; i++) { score[i] = Math.exp((score[i] - max) / T); sum += score[i]; }
  const out: RankedVenue[] = [];
  for (let i = 0; i < n; i++) out.push({ venue: cands[i].venue, distance: cands[i].distance, probability: score[i] / sum });
  out.sort((a, b) => b.probability - a.probability);
  if (out.length > MAX_ANSWERED) out.length = MAX_ANSWERED;
  // Only a joined network pools the stay's evidence: build the memo only then.
  const joined = q.heard.some((h) => h.active && h.bssid);
  const none = Math.exp((noneScore - max) / T) / sum;
  rec?.ranked(out, none);
  return { venues: out, none, gps: joined ? gpsMemo(cands, n) : NO_MEMO };
}

/** What the stay says of a kind of place, whatever the venue: its hour of the week, its length, its indoor look. */
function kindLog(q: RankInput, lp: RankInput['priors'], kind: number, p: ModelParams): number {
  const W = p.weights, L = p.learned;
  let s = 0, tow = 0, dwell = 0, indoor = 0;
  if (lp) {
    if (W.timeOfWeek) s += tow = W.timeOfWeek * learnedTowLog(lp.app, lp.sync, kind, q.hourOfWeek, L);
    if (W.dwell) s += dwell = W.dwell * learnedDwellLog(lp.app, lp.sync, kind, q.dwellS, L);
    if (W.indoor) s += indoor = W.indoor * learnedIndoorLog(lp.app, lp.sync, kind, q.indoor, L);
  } else {
    if (W.timeOfWeek) s += tow = W.timeOfWeek * timeOfWeekLog(kind, q.hourOfWeek);
    if (W.dwell) s += dwell = W.dwell * dwellLog(kind, q.dwellS);
    if (W.indoor) s += indoor = W.indoor * indoorLog(HAND_INDOOR[kind], q.indoor);
  }
  // Kept for an explanation (rank-recorder.ts KIND_PARTS order): the sum above is cached per kind.
  const at = kind * KIND_PARTS.length;
  kindParts[at] = tow; kindParts[at + 1] = dwell; kindParts[at + 2] = indoor;
  return s;
}

const W_pooled = (q: RankInput, W: Weights): number => (W.pooledAp && q.pooled ? Math.min(q.pooled.length, poolBest.length) : 0);

const r2 = (x: number) => Math.round(x * 100) / 100;
const NO_MEMO: GpsMemo = [];
function gpsMemo(cands: ReadonlyArray<{ venue: Venue }>, n: number): GpsMemo {
  for (let i = 0; i < n; i++) order[i] = i;
  const top = order.subarray(0, n).sort((a, b) => gpsScore[b] - gpsScore[a]);
  const best = gpsScore[top[0]];
  const memo: GpsMemo = [];
  for (let k = 0; k < n && k < POOL_CANDIDATES; k++) memo.push(cands[top[k]].venue.id, r2(gpsScore[top[k]] - best));
  return memo;
}
