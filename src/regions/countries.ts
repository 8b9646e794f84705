/**
 * Country entries and exits from a user's fixes (contract §11 "Countries"), pure: `countryAt`
 * answers a point's ISO 3166-1 alpha-2 code, or undefined at sea (no country's borders hold it).
 * - a user's first position in a country: its entry;
 * - a position in another country than the previous one: exit of the old, entry of the new, both
 *   at that position;
 * - at sea the user is in no country: leaving land for the sea is an exit, coming ashore an entry
 *   (a ferry from Nice to Corsica: exit FR at sea, entry FR ashore). A user never seen on land
 *   whose first positions are at sea has no presence yet, so nothing is written for them.
 * As for fences, fixes no later than the last change are skipped, so a retried or late request
 * neither repeats events nor undoes newer ones.
 */
import type { RegionEvent } from '../schemas/visit.js';
import { stampMs } from '../time/stamp.js';
import type { Fix } from '../geofences/events.js';
import type { CountryPresence } from '../users/presence.js';

export type { CountryPresence };

export interface Countries {
  at(lat: number, long: number): string | undefined;
  name(code: string): string;
}

export interface CountryStep { events: RegionEvent[]; presence: CountryPresence | undefined; changed: boolean }

export function evaluateCountries(c: Countries, before: CountryPresence | undefined, fixes: readonly Fix[]): CountryStep {
  const events: RegionEvent[] = [];
  let code = before?.code;
  let last = before?.last ?? -Infinity;
  let changed = false;
  const ordered = fixes
    .map((f) => ({ f, t: stampMs(f.timestamp) }))
    .filter((x) => Number.isFinite(x.t) && x.t > last)
    .sort((a, b) => a.t - b.t);
  for (const { f, t } of ordered) {
    const here = c.at(f.lat, f.long) ?? '';
    if (here === code || (code === undefined && here === '')) continue;
    if (code) events.push(event(c, 'exit', code, f));
    if (here) events.push(event(c, 'entry', here, f));
    code = here;
    last = t;
    changed = true;
  }
  return { events, presence: code === undefined ? undefined : { code, last }, changed };
}

/** A request without a user: its earliest fix says where the device is (no event); the crossings after it count. */
export function countriesAlone(c: Countries, fixes: readonly Fix[]): RegionEvent[] {
  let first = Infinity;
  let at: Fix | undefined;
  for (const f of fixes) { const t = stampMs(f.timestamp); if (t < first) { first = t; at = f; } }
  if (!at) return [];
  return evaluateCountries(c, { code: c.at(at.lat, at.long) ?? '', last: first }, fixes).events;
}

function event(c: Countries, type: RegionEvent['type'], code: string, f: Fix): RegionEvent {
  const location: RegionEvent['location'] = { lat: f.lat, long: f.long };
  if (f.accuracy !== undefined) location.accuracy = f.accuracy;
  return { type, level: 'country', code, name: c.name(code), timestamp: f.timestamp, location };
}
