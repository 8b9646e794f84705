/**
 * The detection model's parameters, in one frozen object that the detection context carries
 * (index.ts DetectContext.params). Each group belongs to one part of the model, named beside it;
 * the values are measured choices, and each says why it is what it is. The service runs with
 * DEFAULT_PARAMS: these hand-set values with the fitted ranking weights of fitted-params.ts over
 * them (written by `npm run ranking:refit`). The accuracy harness (src/research/offline.ts) builds its own frozen variant
 * with withParams instead of changing anything shared, so two contexts never see each other's.
 */

import { FITTED } from './fitted-params.js';

/**
 * Factor weights of the ranking (rank.ts). 0 switches a factor off (the accuracy harness ablates
 * them this way). These are the hand-set starting values: the factor weights, the temperature and
 * "none" are refitted (fitted-params.ts), and what runs is DEFAULT_PARAMS.
 */
const weights = {
  gps: 1, popularity: 1, timeOfWeek: 0.6, dwell: 1, indoor: 1, ssid: 1,
  pooledAp: 1, poolScanDbm: 0, history: 1,
  /** The venue type's refinement of the kind terms (type-priors.ts), and the counted-or-not prior (counted-prior.ts). */
  type: 1, counted: 1,
  /** Spread (m) within which a past stay counts as the same place as this one (labelScores). */
  labelSpread: 15,
  /** The user's past stays here, by the venues they were ranked to (history.ts labelScores). */
  labels: 1, labelPrior: 0.5,
  /**
   * Multipliers of the history labels and the hour-of-week terms at a venue whose source counts
   * visits (popularity ≥ 0): judged on recorded stays, labels were worth almost nothing there and
   * the hour of week less (docs/ranking.md, Fitted weights). 1 is the plain model; the refit fits them.
   */
  labelsCounted: 1, timeCounted: 1,
  /** Cap on the footprint radius, metres (footprint()). */
  maxRadius: 60,
  /**
   * Search again this far (m) when nothing is near: a stay at a large venue's far side (an
   * airport's terminals lie hundreds of metres from its point). NYC s1 airports top1 0.25 → 0.83.
   */
  wideSearch: 1500,
  /** Kind × hour and dwell learned online (learned-priors.ts) instead of the hand tables. */
  learnedPriors: 1,
  /** Softmax temperature: > 1 flattens over-confident sums of not quite independent factors. */
  temperature: 1.0,
  /** Score of "none of these" relative to the candidates' (nats), before the temperature. */
  none: -3,
};

/** Wi-Fi positioning with access points located online (evidence/position.ts). */
const wifiPos = {
  /**
   * Stays an access point needs before it locates anyone. One is enough: the place's variance
   * (1 / Σw) already says how little one teacher knows, and the gate catches a bad one. 3 → 1,
   * offline top1: NYC s1 +0.5, s2 +0.4 (a sparse city: most networks are heard by few stays),
   * Monaco m1 −0.05.
   */
  minStays: 1,
  /** Inflation of the Wi-Fi position's variance: networks heard together were taught by the same stays. */
  inflate: 2,
  /**
   * Gate: beyond this many sigmas apart, GPS and Wi-Fi disagree and GPS is kept alone (a router
   * that moved, a hotspot in a pocket). 3 → 5, offline top1 on every set tried: NYC s1–s5 +0.11 to
   * +0.24, urban-harsh h2 +0.31, Monaco m1 +0.47; held out m2 +0.44, m3 +0.38, stream u2 +0.15,
   * u3 0.0. At 3 it threw away Wi-Fi positions that were right; 4, 8 or no gate at all score
   * within ±0.05 of 5, which keeps a guard against the real-world cases.
   */
  gate: 5,
  /** Wi-Fi positioning on or off (the accuracy harness ablates it). */
  on: 1,
};

/** Legs of travel next to a visit, run back to the door of the place (leg.ts). */
const leg = {
  /** Only this much of the leg next to its end is fitted (s): streets turn, a short track is straight enough. */
  windowS: 300,
  /** A track needs this many usable fixes, spread over at least `minSpanS`. */
  minFixes: 3, minSpanS: 60,
  /** Fixes coarser than this (m) are network fixes, useless for a track. */
  maxAccuracy: 150,
  /** A leg counts for a visit whose bounds are this close (s) to its own. */
  maxGapS: 600,
  /** Floor of the end's per-axis error (m): the door is not the point, a track is not a line. */
  minSigma: 5,
  /**
   * Beyond this many sigmas from the stay's centre, the leg is someone else's story (a stop on the
   * way). 3 → 5 (as positioning's gate), offline top1: NYC s1–s5 +0.04 to +0.13, h2 +0.07,
   * Monaco m1 +0.09, m2 0.0.
   */
  gate: 5,
  /** 0 turns legs off (the accuracy harness ablates them this way). */
  on: 1,
};

/**
 * A silence this long ends a stay even when the next fix is back at the same place (stream.ts):
 * phones keep reporting while they stay, so hours without a fix mean the person left and came back
 * (home, the office the next day), and one stay across them would swallow a visit. The limit is
 * the larger of `minMs` and `spacings` times the stay's own fix spacing.
 */
const silence = { minMs: 45 * 60_000, spacings: 3 };

/** Venue-type footprints learned online (evidence/footprint.ts). */
const footprint = {
  /** Pseudo-stays the store's radius is worth. */
  priorStays: 10,
  /** Merge into the shared store after this many stays. */
  flushEvery: 200,
  /** 0 keeps the store's (capped) radius: the accuracy harness ablates learning this way. */
  on: 1,
};

/** Hour of day, dwell and indoor share per venue type, shrunk to the type's kind (evidence/type-priors.ts). */
const typePriors = {
  /** Pseudo-stays of the kind's shape that a type's own counts are shrunk towards. */
  priorStays: 20,
  /** Weights of the three refinements (0 switches one off; the harness ablates `typePriors`). */
  hour: 0.6, dwell: 1, indoor: 1,
  on: 1,
  flushEvery: 200,
};

/** Kind × hour-of-week, dwell and indoor tables learned online (evidence/learned-priors.ts). */
const learned = {
  /** Pseudo-visits per kind that the hand tables are worth. */
  priorVisits: 40,
  /** Merge into the shared store after this many stays. */
  flushEvery: 200,
};

/** Counted or not: the learned prior of venues whose source counts visits (evidence/counted-prior.ts). */
const counted = {
  /** Pseudo-stays the store's own class shares are worth. */
  priorStays: 20,
  /** Merge into the shared store after this many stays. */
  flushEvery: 200,
  /** 0 switches the factor off (the accuracy harness ablates it this way). */
  on: 1,
};

/**
 * Registered beacons heard (evidence/beacons.ts), in dB relative to the beacon's tx_power (its
 * power at 1 m). Measured on vdsim --beacons 0.5 (Monaco, seed b1, 869 stays inside a beaconed
 * venue, 2,910 beside one): inside its venue a beacon's mean rssi is tx − 21 dB (sd 6.1) and it is
 * heard on 96% of ranging scans; from a stay at another venue d metres away, tx − 29 dB at 5 to
 * 10 m falling to tx − 36 dB beyond 50 m (sd 3 to 5, only what is heard at all), on about half
 * the scans. How often it was heard is left out: a stay's scans share the phone's position, and
 * counting each as independent made answers overconfident (seed b1 ECE 0.025 → 0.052); the share
 * of scans that heard it, as one piece of evidence, lost top1 (b1 −0.4 points).
 */
const beacons = {
  weight: 1,
  insideDb: -21, insideSdDb: 6.5,
  /** Outside: outsideDb within outsideNearM, then outsideSlopeDb lower per tenfold distance. */
  outsideDb: -29, outsideNearM: 7, outsideSlopeDb: 7, outsideSdDb: 4.5,
  /** One beacon moves a candidate at most this far (nats) below the best: a registry can be wrong. */
  floor: -8,
  /**
   * A stay at another venue within wallM metres of the beacon hears it as loud as inside wallP of
   * the time (the phone by the shared wall; rarer with the square of the distance beyond): most
   * confident wrong answers that heard their answer's beacon were such a neighbour, 5 to 20 m
   * away. Fitted on seeds b1-b3 and t1-t3 (docs/ranking.md, Beacons), checked on b4-b6, t4-t6.
   */
  wallP: 0.2, wallM: 15,
  /**
   * 1: a beacon heard as if inside speaks against "none of these" as against a place just beyond
   * its wall (without it, one-signal stays that heard their venue's beacon went to "none").
   */
  noneOutside: 1,
  /**
   * Ranging scans that never heard any of a candidate's registered beacons: this much each against
   * it, up to missCap (seed b1 top1 without it −0.15 points, ECE +0.003).
   */
  missPerScan: 2, missCap: 6,
  /**
   * Beacons nobody registered, learned per app from confident stays (evidence/learned-beacons.ts):
   * their weight (0 switches them off), the spread of the rssi − tx a venue hears one at (dB),
   * the prior every venue's mean is shrunk towards (a beacon some 15 m away through a wall:
   * mean, spread, worth in stays), and the floor of one beacon's term (nats).
   */
  learnedWeight: 0.5, learnedSdDb: 5, learnedPriorDb: -30, learnedPriorSdDb: 8, learnedPriorW: 1, learnedFloor: -4,
  /** A learned beacon speaks once its stays weigh this much; a stay teaches when its best venue is this likely, its venues above learnedTeachVenue. */
  learnedMinWeight: 2, learnedTeachP: 0.5, learnedTeachVenue: 0.2,
  /** 0 ignores beacon scans (the accuracy harness ablates them this way). */
  on: 1,
};

const defaults = { weights, wifiPos, leg, silence, footprint, typePriors, learned, counted, beacons };

type Group<T> = { readonly [K in keyof T]: number };
export type ModelParams = { readonly [G in keyof typeof defaults]: Group<(typeof defaults)[G]> };
export type Weights = ModelParams['weights'];
export type WifiPosParams = ModelParams['wifiPos'];
export type LegParams = ModelParams['leg'];
export type SilenceParams = ModelParams['silence'];
export type FootprintParams = ModelParams['footprint'];
export type TypePriorParams = ModelParams['typePriors'];
export type LearnedParams = ModelParams['learned'];
export type CountedParams = ModelParams['counted'];
export type BeaconParams = ModelParams['beacons'];
/** Some parameters of some groups, to change from a base (withParams). */
export type ParamOverrides = { [G in keyof ModelParams]?: { [K in keyof ModelParams[G]]?: number } };

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** The hand-set values, before the fitted weights: where a refit may start from (`--from hand`). */
export const HAND_PARAMS: ModelParams = deepFreeze(defaults);

/** The parameters the service runs with: the hand-set values with the fitted weights over them (fitted-params.ts). Frozen, to the last number. */
export const DEFAULT_PARAMS: ModelParams = withParams(HAND_PARAMS, FITTED as ParamOverrides);

/**
 * A new frozen parameter set: `base` with `overrides` applied; `base` is left as it was. An
 * unknown group or parameter is an error (a typo on the harness's command line must not measure
 * the defaults under another name).
 */
export function withParams(base: ModelParams, overrides: ParamOverrides): ModelParams {
  const out: Record<string, Record<string, number>> = {};
  for (const [g, group] of Object.entries(base)) out[g] = { ...group };
  for (const [g, group] of Object.entries(overrides)) {
    if (!(g in out)) throw new Error(`unknown model parameter group "${g}": expected one of ${Object.keys(out).join(', ')}`);
    for (const [k, v] of Object.entries(group ?? {})) {
      if (!(k in out[g])) throw new Error(`unknown model parameter "${g}.${k}": expected one of ${Object.keys(out[g]).join(', ')}`);
      if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`model parameter "${g}.${k}" must be a number, got ${String(v)}`);
      out[g][k] = v;
    }
  }
  return deepFreeze(out) as unknown as ModelParams;
}
