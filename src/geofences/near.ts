/**
 * `GET …/geofences?near=<lat>,<long>&radius=` (contract §4): the fence index answers which
 * live fences come within `radius` of the point (the same query detection makes, with the radius
 * as the accuracy), each is measured exactly on the index's copy of its shape, and the page is
 * cut by (distance, id), so a cursor is the last item's pair and pages never repeat or skip a
 * fence. Records are read for the page only, once a slot (near-cache.ts), and the page carries
 * each as the JSON it is answered with.
 */
import type { StoredGeofence } from '../schemas/geofence.js';
import type { FenceIndex } from './fence-index.js';
import { nearCache } from './near-cache.js';

export interface NearQuery {
  lat: number; long: number; radius: number; tag?: string; limit: number;
  /** The last item of the previous page. */
  after?: { distance: number; id: string };
}

/** A fence of the page: `json` is its public record, open (public.ts openJson). */
export interface NearHit { id: string; distance: number; json: string }
export interface NearPage { items: NearHit[]; next: { distance: number; id: string } | null }

export function nearSearch(index: FenceIndex | undefined, record: (id: string) => StoredGeofence | undefined,
  q: NearQuery, now: number): NearPage {
  if (!index || index.size === 0) return { items: [], next: null };
  const n = index.query(q.lat, q.long, q.radius, now);
  // Distances from the index's own shapes: records are read only for the page (and a tag's misses).
  const found: Array<{ slot: number; id: string; distance: number }> = [];
  const a = q.after;
  for (let i = 0; i < n; i++) {
    const slot = index.hitSlots[i], id = index.idOf(slot);
    const distance = Math.max(0, index.distanceOf(slot));
    if (distance > q.radius) continue;
    if (a && (distance < a.distance || (distance === a.distance && id <= a.id))) continue;
    found.push({ slot, id, distance });
  }
  found.sort((x, y) => x.distance - y.distance || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const cache = nearCache(index);
  const items: NearHit[] = [];
  for (let i = 0; i < found.length; i++) {
    const { slot, id, distance } = found[i];
    if (i > 0 && found[i - 1].id === id) continue; // the query reports a fence once; kept as a guard
    const e = cache.entry(slot, record);
    if (!e || (q.tag !== undefined && e.tag !== q.tag) || e.expires <= now) continue;
    if (items.length === q.limit) return { items, next: { distance: items[items.length - 1].distance, id: items[items.length - 1].id } };
    items.push({ id, distance, json: e.json });
  }
  return { items, next: null };
}
