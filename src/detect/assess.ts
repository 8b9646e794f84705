/** One stay, from its fixes and Wi-Fi, to ranked venues; shared by structured and streamed input. */
import type { ApObservation } from '../learned/tables.js';
import type { UserStore } from '../users/store.js';
import type { VenueStore } from './venue.js';
import type { Fixes } from './fixes.js';
import { robustCentre, type Centre } from './center.js';
import { footprint, rank, type GpsMemo, type RankedVenue } from './rank.js';
import type { WifiHeard } from './evidence/wifi.js';
import { hourOfWeek } from '../time/stamp.js';
import { fuse, teachWeight, wifiCentre } from './evidence/position.js';
import { learnPriors } from './evidence/learned-priors.js';
import { learnTypePriors, type TypeSample } from './evidence/type-priors.js';
import { learnFootprints, learnedRadius, type FootprintSample } from './evidence/footprint.js';
import { KINDS, kindOf } from './kinds.js';
import { withLeg, type LegEnd } from './leg.js';
import { indoorShare } from './evidence/indoor.js';
import { learnCounted, type ClassSizes } from './evidence/counted-prior.js';
import type { ModelParams } from './params.js';
import { resolveBeacons, type BeaconsHeard, type StayBeacons } from './evidence/beacons.js';
import { beaconsToLearn } from './evidence/learned-beacons.js';
import type { BeaconView } from '../schemas/beacon.js';
import { placesOf, type Heard } from '../integrity/heard.js';

export interface Assessment {
  /** The position used: the GPS centre fused with Wi-Fi positioning. */
  centre: Centre;
  /**
   * GPS alone: the stay's own fixes fused with its legs of travel (leg.ts). What access points are
   * taught, never the Wi-Fi-fused centre, so the map does not feed on itself.
   */
  gpsCentre: Centre; ranked: RankedVenue[]; none: number; heard: WifiHeard[];
  /** The best candidates by GPS, hour and dwell, for pooling under joined networks. */
  gps: GpsMemo;
  hourOfWeek: number; dwellS: number;
  /** How likely the fixes were taken indoors (indoor.ts). */
  indoor: number;
  /**
   * False when the stay had no fix and its learned networks alone placed it: then it teaches
   * nothing (apsToLearn, learnFromStay), so that the map never feeds on itself.
   */
  ownFixes: boolean;
  /** The beacons the stay heard (registered, learned, and those to teach), when the device ranged. */
  beacons?: StayBeacons;
}

export interface AssessInput {
  fixes: Fixes; from: number; to: number;
  heard: WifiHeard[];
  /** The networks the request's checks looked up (integrity/heard.ts): their learned places are not read again. */
  checked?: Heard;
  startMs: number; endMs: number; offsetMin: number;
  /** Past stays of the user (records.ts `v`). */
  history: readonly number[] | undefined;
  /** Their labels (records.ts `t`). */
  labels?: ReadonlyArray<string | number>;
  /** Ends of the legs of travel that left this stay or reached it (leg.ts). */
  legs?: readonly LegEnd[];
  /** Beacons the stay heard (absent: no beacon evidence), and the app's registry (absent: it registered none). */
  beacons?: BeaconsHeard;
  registry?: BeaconView;
}

export function assess(venues: VenueStore, users: UserStore, app: string, q: AssessInput, p: ModelParams): Assessment | null {
  const ownCentre = robustCentre(q.fixes, q.from, q.to);
  const heard = q.heard;
  const places = heard.length && p.wifiPos.on ? placesOf(q.checked, heard.map((h) => h.bssid), (bssids) => users.apPlaces(app, bssids)) : undefined;
  let centre: Centre, gpsCentre: Centre;
  if (ownCentre) {
    gpsCentre = ownCentre;
    if (q.legs) for (const l of q.legs) gpsCentre = withLeg(gpsCentre, l, p.leg);
    centre = places ? fuse(gpsCentre, heard, places, p.wifiPos) : gpsCentre;
  } else {
    // No fix: the networks the app has located place the stay, or nothing does.
    const wifi = places ? wifiCentre(heard, places, p.wifiPos) : null;
    if (!wifi) return null;
    centre = gpsCentre = wifi;
  }
  const pools = pooling(p.weights.poolScanDbm);
  const pooled = heard.some(pools) ? users.pooledAps(app, heard.map((h) => (pools(h) ? h.bssid : ''))) : undefined;
  // The stay's middle stands for its time: a lunch that starts at 11:50 is still lunch.
  const mid = (q.startMs + q.endMs) / 2;
  const how = hourOfWeek(mid, q.offsetMin), dwellS = (q.endMs - q.startMs) / 1000;
  const indoor = indoorShare(ownCentre ? ownCentre.fixSigma : NaN);
  const beacons = resolveBeacons(q.beacons, q.registry, (keys) => users.learnedBeacons(app, keys));
  const { venues: ranked, none, gps } = rank(venues, {
    lat: centre.lat, lon: centre.lon, sigma: centre.sigma, dwellS,
    hourOfWeek: how, indoor, heard, pooled, history: q.history, labels: q.labels, priors: { app, sync: users },
    beacons,
  }, p);
  return { centre, gpsCentre, ranked, none, heard, gps, hourOfWeek: how, dwellS, indoor, ownFixes: !!ownCentre, beacons };
}

const kinds: number[] = [], probs: number[] = [];
/**
 * A confirmed stay teaches the app's kind × hour and dwell tables (learned-priors.ts), the
 * footprints of its likely venues' types (footprint.ts) and the share of visits to counted
 * venues (counted-prior.ts; `venues` says how many the store holds).
 */
export function learnFromStay(a: Assessment, confirmed: boolean, users: UserStore, app: string, venues: ClassSizes, p: ModelParams): void {
  if (!confirmed || !a.ownFixes || a.ranked.length === 0) return;
  learnCounted(app, users, venues, a.ranked, p.counted);
  const samples: FootprintSample[] = [];
  for (let i = 0; i < a.ranked.length && i < 5; i++) {
    const { venue: v, distance, probability } = a.ranked[i];
    samples.push({ typeId: v.type_id, probability, distance, radius: learnedRadius(app, users, v.type_id, footprint(v.radius, p.weights), p.footprint) });
  }
  learnFootprints(app, users, a.centre.sigma, samples, p.footprint);
  if (!p.weights.learnedPriors) return;
  kinds.length = 0; probs.length = 0;
  for (let i = 0; i < a.ranked.length && i < 5; i++) { kinds.push(kindOf(a.ranked[i].venue)); probs.push(a.ranked[i].probability); }
  learnPriors(app, users, kinds, probs, a.hourOfWeek, a.dwellS, a.indoor, p.learned);
  const types: TypeSample[] = [];
  for (let i = 0; i < a.ranked.length && i < 5; i++) types.push({ typeId: a.ranked[i].venue.type_id, kind: kinds[i], probability: probs[i] });
  learnTypePriors(app, users, types, a.hourOfWeek, a.dwellS, a.indoor, p.typePriors);
}

/**
 * Networks whose stays are pooled as one venue's: a joined one, and (when `poolScanDbm` is
 * above -100) a scanned one heard so strongly that the phone must be in the same room.
 */
const pooling = (poolScanDbm: number) => (h: WifiHeard): boolean => !!h.bssid && (h.active || h.strength >= poolScanDbm);

/**
 * How many of a stay's networks learn their place: the joined ones, then the loudest. Each is an
 * LMDB read and write in the request's transaction (all of a 3-event request's teaching cost
 * 0.12 ms in bench/http-task); the faint ones teach little (their weight falls with the
 * distance their strength suggests).
 * 8 instead of 16, offline top1: Monaco m1 −0.03, m2 −0.1, NYC s1 −0.01, s2 −0.04, u2 0.0.
 */
export const LEARN_PLACES = 8;
function strongest(heard: readonly WifiHeard[], k: number): WifiHeard[] {
  const withId = heard.filter((h) => h.bssid);
  if (withId.length <= k) return withId;
  return withId.sort((x, y) => Number(y.active) - Number(x.active) || y.strength - x.strength).slice(0, k);
}

/** The signals show a person staying: fixes agree on one place and known speeds are low. */
export const looksStationary = (c: Centre): boolean =>
  c.inlierShare >= 0.6 && (Number.isNaN(c.medianSpeed) || c.medianSpeed < 1);

/**
 * What a confirmed stay teaches the app's access points: where each heard network is (from the
 * GPS centre alone), and, for a joined network, the stay's own evidence to pool; and, when its
 * answer is confident, the venues its unregistered beacons were heard at. Networks are not
 * taught venue labels: those counts measured as useless once pooling and positioning existed
 * (removed: Monaco m1 +0.3, stream u1 top1 of found +0.7, NYC s1 0.0).
 */
export function apsToLearn(a: Assessment, confirmed: boolean, p: ModelParams): ApObservation[] {
  if (!confirmed || !a.ownFixes) return [];
  const pools = pooling(p.weights.poolScanDbm);
  const out: ApObservation[] = [];
  // The strongest networks heard learn where they are, from the GPS centre alone.
  for (const h of strongest(a.heard, LEARN_PLACES)) out.push({ bssid: h.bssid, at: [a.gpsCentre.lat, a.gpsCentre.lon, teachWeight(a.gpsCentre, h.strength)] });
  // Joined networks pool the stay's GPS evidence (wifi.ts PooledAp).
  if (a.gps.length) for (const h of a.heard) if (pools(h)) out.push({ bssid: h.bssid, pool: a.gps });
  // Beacons the app did not register learn the venues they were heard at (learned-beacons.ts).
  if (a.beacons) out.push(...beaconsToLearn(a.beacons.unregistered, a.ranked, p.beacons));
  return out;
}

const HOME_KIND = KINDS.indexOf('home'), LODGING_KIND = KINDS.indexOf('lodging');
/**
 * The shares of a stay's ranking on private homes and on lodging (kinds.ts): users/places.ts
 * learns where the user lives from them. Homes stand several to a point (Foursquare snaps them),
 * so the share says the place is homes whichever of them came first; a night at a hotel is not
 * a night at home.
 */
export function homeShares(ranked: readonly RankedVenue[]): { home: number; lodging: number } {
  let home = 0, lodging = 0;
  for (const r of ranked) {
    const k = kindOf(r.venue);
    if (k === HOME_KIND) home += r.probability;
    else if (k === LODGING_KIND) lodging += r.probability;
  }
  return { home, lodging };
}
