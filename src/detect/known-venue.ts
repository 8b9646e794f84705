/**
 * What a stay whose venue is known teaches the app's tables (contract §10): the same learning a
 * confirmed stay does after its ranking (assess.ts learnFromStay, apsToLearn), with the venue the
 * user named at probability 1 instead of the ranking's guesses. Its joined networks pool the venue
 * alone (every other venue they listed takes the floor for this stay), the beacons nobody
 * registered learn it, and the kind × hour, dwell, type, footprint and counted tables count it.
 * Access points' places are not taught again: detection placed them from the GPS already.
 */
import type { ApObservation } from '../learned/tables.js';
import type { UserStore } from '../users/store.js';
import type { AnsweredVisit } from '../users/answered.js';
import { haversineM } from '../geo/distance.js';
import type { Venue } from './venue.js';
import type { ModelParams } from './params.js';
import { footprint } from './rank.js';
import { kindOf } from './kinds.js';
import { learnPriors } from './evidence/learned-priors.js';
import { learnTypePriors } from './evidence/type-priors.js';
import { learnFootprints, learnedRadius } from './evidence/footprint.js';
import { learnCounted, type ClassSizes } from './evidence/counted-prior.js';
import { beaconsToLearn } from './evidence/learned-beacons.js';

/**
 * The parameters with every learned table merged at once: feedback is rare and taught off the
 * detection threads, where counts held back for a batch would wait for the next feedback.
 */
export function mergingAtOnce(p: ModelParams): ModelParams {
  return { ...p, learned: { ...p.learned, flushEvery: 1 }, typePriors: { ...p.typePriors, flushEvery: 1 },
    footprint: { ...p.footprint, flushEvery: 1 }, counted: { ...p.counted, flushEvery: 1 } };
}

/** Teaches the learned tables from `a` at `venue`; answers the observations to store with the user's record (UserUpdate.learn). */
export function teachKnownVenue(a: AnsweredVisit, venue: Venue, users: UserStore, app: string, venues: ClassSizes, p: ModelParams): ApObservation[] {
  const ranked = [{ venue, probability: 1 }];
  learnCounted(app, users, venues, ranked, p.counted);
  if (!a.x) {
    const distance = haversineM(a.la / 1e6, a.lo / 1e6, venue.lat, venue.lon);
    const radius = learnedRadius(app, users, venue.type_id, footprint(venue.radius, p.weights), p.footprint);
    learnFootprints(app, users, a.sg, [{ typeId: venue.type_id, probability: 1, distance, radius }], p.footprint);
  }
  if (p.weights.learnedPriors) {
    const kind = kindOf(venue), indoor = a.o < 0 ? NaN : a.o / 100;
    learnPriors(app, users, [kind], [1], a.h, a.d, indoor, p.learned);
    learnTypePriors(app, users, [{ typeId: venue.type_id, kind, probability: 1 }], a.h, a.d, indoor, p.typePriors);
  }
  const out: ApObservation[] = [];
  for (const bssid of a.w ?? []) out.push({ bssid, pool: [venue.id, 0] });
  if (a.b) {
    const heard: Array<[string, number]> = [];
    for (let i = 0; i + 1 < a.b.length; i += 2) heard.push([a.b[i] as string, a.b[i + 1] as number]);
    out.push(...beaconsToLearn(heard, ranked, p.beacons));
  }
  return out;
}
