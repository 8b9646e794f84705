/**
 * The explorer's venue search (GET /admin/venues): by id, or by name or category around a
 * point. The store has no name index, so a search by text alone reads at most SCAN_MAX records
 * from the start of the store; with a point (the map's centre) it reads only the venues nearby.
 */
import { DwellError } from '../errors.js';
import type { VenueStore } from '../venues/store.js';
import type { Venue } from '../venues/types.js';

const SCAN_MAX = 20_000;
const NEAR_MAX = 2_000;

export interface VenueQuery { q: string; id: string; lat?: number; long?: number; radius: number; limit: number }

const shown = (v: Venue, distance?: number) => ({
  id: v.id, name: v.name ?? '', category: v.category ?? '', sub_category: v.sub_category ?? '', lat: v.lat, long: v.lon,
  radius_m: v.radius, popularity: v.popularity, ...(distance === undefined ? {} : { distance_m: Math.round(distance) }),
});

export function parseVenueQuery(query: string): VenueQuery {
  const p = new URLSearchParams(query);
  const num = (k: string, min: number, max: number, fallback?: number) => {
    const raw = p.get(k);
    if (raw === null || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw new DwellError('invalid_request', `${k} is a number from ${min} to ${max}`, `/${k}`);
    return n;
  };
  const lat = num('lat', -90, 90), long = num('long', -180, 180);
  if ((lat === undefined) !== (long === undefined)) throw new DwellError('invalid_request', 'lat and long go together', '/lat');
  return { id: (p.get('q') ?? '').trim(), q: (p.get('q') ?? '').trim().toLowerCase(), lat, long, radius: num('radius', 1, 5000, 1000)!, limit: Math.floor(num('limit', 1, 200, 50)!) };
}

export function searchVenues(store: VenueStore, s: VenueQuery) {
  const matches = (v: Venue) => !s.q || `${v.name ?? ''}\u0000${v.category ?? ''}\u0000${v.sub_category ?? ''}`.toLowerCase().includes(s.q);
  const byId = s.id ? store.indexOf(s.id) : undefined;
  const out: ReturnType<typeof shown>[] = [];
  if (byId !== undefined) { const v = store.get(byId); if (v) out.push(shown(v)); }
  if (s.lat !== undefined && s.long !== undefined) {
    for (const { venue, distance } of store.near(s.lat, s.long, s.radius, NEAR_MAX)) {
      if (out.length >= s.limit) break;
      if (matches(venue) && venue.id !== out[0]?.id) out.push(shown(venue, distance));
    }
    return { venues: out, scanned: 'near' as const };
  }
  if (!s.q) throw new DwellError('invalid_request', 'give q (a name, category or id), or lat and long', '/q');
  const n = Math.min(store.count, SCAN_MAX);
  for (let i = 0; i < n && out.length < s.limit; i++) {
    const v = store.get(i);
    if (v && matches(v) && v.id !== out[0]?.id) out.push(shown(v));
  }
  return { venues: out, scanned: n < store.count ? 'first records' as const : 'all' as const };
}
