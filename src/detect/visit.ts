/** The visit object of contract §2, from a ranking and the stay's times. */
import { hash } from 'node:crypto';
import type { Address, AddressParts, Place, Visit, VenueInfo } from '../schemas/visit.js';
import type { RankedVenue } from './rank.js';
import type { VisitTimes } from '../users/records.js';
import { ACC_PER_SIGMA } from './center.js';
import { formatLocal, formatUtc } from '../time/stamp.js';

/** Deterministic visit id: a retried request answers with the same ids. */
export function visitId(...parts: Array<string | number>): string {
  // The one-shot hash: half the cost of a Hash object, the same digest.
  return 'v_' + hash('sha256', parts.join('\u0000'), 'base64url').slice(0, 22);
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
/** Probabilities are rounded down, so rounding never pushes their sum above 1. */
const floorP = (p: number) => Math.floor(p * 1e4) / 1e4;

export interface StayFacts {
  id: string;
  startMs: number; endMs: number | null; offsetMin: number;
  confirmed: boolean;
  lat: number; lon: number; sigma: number;
}

export function venueInfos(ranked: readonly RankedVenue[]): VenueInfo[] {
  return ranked.map((r) => ({ id: r.venue.id, name: r.venue.name ?? '', category: r.venue.category ?? '',
    sub_category: r.venue.sub_category ?? '', probability: floorP(r.probability) }));
}

const ADDRESS_KEYS = ['city', 'country', 'state', 'formatted_city', 'postal_code', 'formatted_address', 'street_address'] as const;

/** The seven keys of interface 2.8, each a string: later parts win, "" where none knows. */
export function fullAddress(...parts: Array<AddressParts | undefined>): Address {
  const out = {} as Address;
  for (const k of ADDRESS_KEYS) {
    out[k] = '';
    for (const p of parts) { const v = p?.[k]; if (typeof v === 'string' && v !== '') out[k] = v; }
  }
  return out;
}

export function buildVisit(
  stay: StayFacts, ranked: readonly RankedVenue[], times: VisitTimes | null,
  estimateAddress: (lat: number, lon: number) => AddressParts,
): Visit {
  // The honest accuracy is the radius the true position falls within about two times in three.
  const geo = { lat: round(stay.lat, 6), long: round(stay.lon, 6), accuracy: round(Math.max(5, ACC_PER_SIGMA * stay.sigma), 1) };
  const visit: Visit = {
    id: stay.id, event_type: 'visit', is_confirmed: stay.confirmed,
    start_time: formatLocal(stay.startMs, stay.offsetMin),
    place_id: null, place: null,
  };
  if (stay.endMs !== null) visit.end_time = formatLocal(stay.endMs, stay.offsetMin);
  if (ranked.length === 0) {
    visit.place = { estimated_address: fullAddress(estimateAddress(stay.lat, stay.lon)), estimated_geolocation: geo };
    return visit;
  }
  const top = ranked[0].venue;
  const venues = venueInfos(ranked);
  const place: Place = {
    id: top.id, type: top.type, type_id: top.type_id,
    estimated_address: fullAddress(estimateAddress(top.lat, top.lon), top.address),
    estimated_geolocation: geo,
    venue_info: { ...venues[0] }, venues,
  };
  if (times) { place.first_visit_time = formatUtc(times.first); place.last_visit_time = formatUtc(times.last); }
  visit.place_id = top.id;
  visit.place = place;
  return visit;
}

export function transitVisit(id: string, startMs: number, endMs: number, offsetMin: number): Visit {
  return { id, event_type: 'transit', is_confirmed: false, start_time: formatLocal(startMs, offsetMin),
    end_time: formatLocal(endMs, offsetMin), place_id: null, place: null };
}

/**
 * A visit event that nothing locates: no fix, and no heard network whose place the app has
 * learned. Not `place: null`, which says transit: the place is there but unknown (geolocation
 * null, every address key ""), and nothing shows that the person stayed, so it is unconfirmed.
 */
export function unlocatedVisit(id: string, startMs: number, endMs: number, offsetMin: number): Visit {
  return { id, event_type: 'visit', is_confirmed: false, start_time: formatLocal(startMs, offsetMin),
    end_time: formatLocal(endMs, offsetMin), place_id: null, place: { estimated_address: fullAddress(), estimated_geolocation: null } };
}
