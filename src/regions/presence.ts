/**
 * Countries as a trigger kind of the presence step (users/presence.ts), for apps with
 * `region_events`: borders from the place database every thread of the process shares
 * (venues/places.ts), English names from Intl (venues/address.ts).
 */
import type { PresenceKind } from '../users/presence.js';
import type { Fix } from '../geofences/events.js';
import { countryAt } from '../venues/places.js';
import { countryName } from '../venues/address.js';
import { countriesAlone, evaluateCountries, type Countries } from './countries.js';

export const COUNTRIES: Countries = { at: countryAt, name: countryName };

export function countryKind(fixes: () => readonly Fix[], c: Countries = COUNTRIES): PresenceKind {
  return {
    step(before, out) {
      if (fixes().length === 0) return undefined;
      const ev = evaluateCountries(c, before.country, fixes());
      for (const e of ev.events) out.region.push(e);
      return ev.changed ? { country: ev.presence } : undefined;
    },
    alone(out) {
      for (const e of countriesAlone(c, fixes())) out.region.push(e);
    },
  };
}
