/**
 * Which learned networks may accuse a position (contract §12 `wifi_mismatch`). An access point's
 * learned place (learned/shapes.ts ApPlace: Σw, Σw·lat, Σw·lon, stays) also keeps, from here on,
 * the box its stays' centres span and up to WITNESSES distinct users who taught it:
 * [Σw, Σw·lat, Σw·lon, stays, minLat, maxLat, minLon, maxLon, user tag, …].
 *
 * The rule: a network accuses when at least MIN_OTHER_USERS users other than the one asking
 * taught it, from confident stays, and its stays all lie within MOVING_M of each other. A phone
 * hotspot, a train's or a bus's network is learned at places far apart: its box grows past
 * MOVING_M and it never accuses anyone again. Places learned before this rule have no witnesses:
 * they never accuse.
 */
import type { ApPlace } from '../learned/shapes.js';
import { haversineM } from '../geo/distance.js';

export const MIN_OTHER_USERS = 3;
/** Users remembered per network: one more than needed, so that the asking user may be among them. */
export const WITNESSES = MIN_OTHER_USERS + 1;
/** Stays of one network spread wider than this: it travels (hotspot, train, bus). */
export const MOVING_M = 2_000;
/** A network placed farther than this from a position behind a visit contradicts it. */
export const MISMATCH_M = 5_000;

/** A user's tag: 32-bit FNV-1a of the user key (no user id is stored in the learned tables). */
export function userTag(user: string | null): number {
  if (!user) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < user.length; i++) { h ^= user.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  // 0 means "no user": a user whose hash is 0 is tagged 1.
  return h >>> 0 || 1;
}

/** `next` (the four sums with one more stay at lat, lon, by user `tag`) with `stored`'s box and witnesses, and this stay's. */
export function withWitness(next: [number, number, number, number], stored: ApPlace | undefined, lat: number, lon: number, tag: number | undefined): ApPlace {
  return withWitnesses(next, stored, [0, 0, 0, 0, lat, lat, lon, lon, ...(tag ? [tag] : [])] as ApPlace);
}

/** `next` (two places' sums added) with the union of their boxes and witnesses: what a cluster node's summed deltas keep (learned/sums.ts). */
export function withWitnesses(next: [number, number, number, number], a: ApPlace | undefined, b: ApPlace): ApPlace {
  const hasA = a !== undefined && a.length >= 8, hasB = b.length >= 8;
  if (!hasA && !hasB) return next as ApPlace;
  const box = !hasA ? b.slice(4, 8) : !hasB ? a.slice(4, 8)
    : [Math.min(a[4], b[4]), Math.max(a[5], b[5]), Math.min(a[6], b[6]), Math.max(a[7], b[7])];
  const tags = hasA ? a.slice(8) : [];
  if (hasB) for (let i = 8; i < b.length && tags.length < WITNESSES; i++) if (!tags.includes(b[i])) tags.push(b[i]);
  return [...next, ...box, ...tags] as ApPlace;
}

/** Whether `place` may accuse `self` (a userTag): where it is, is then its mean (place[1] / place[0], place[2] / place[0]). */
export function mayAccuse(place: ApPlace | undefined, self: number): place is ApPlace {
  if (!place || place.length < 8 + MIN_OTHER_USERS || !(place[0] > 0)) return false;
  let others = 0;
  for (let i = 8; i < place.length; i++) if (place[i] !== self) others++;
  if (others < MIN_OTHER_USERS) return false;
  return haversineM(place[4], place[6], place[5], place[7]) <= MOVING_M;
}
