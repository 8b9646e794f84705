/** Turns what a source knows about a venue into a full record (type fields, radius, address). */
import { completeAddress, countryName } from '../address.js';
import type { VenueType } from '../taxonomy.js';
import { UNCOUNTED, type Address, type Venue } from '../types.js';

export interface VenueInput {
  id: string;
  name: string;
  lat: number;
  lon: number;
  type: VenueType;
  /** Footprint radius from geometry, when the source has it. */
  radius?: number;
  /** Visits the source counted; absent when it counts none. */
  popularity?: number;
  brand?: string;
  /** Source address; `country` may be an ISO code or a name. */
  address?: Address;
}

export function makeVenue(v: VenueInput): Venue {
  const src: Address & { country_code?: string } = { ...v.address };
  if (src.country && /^[A-Za-z]{2}$/.test(src.country)) {
    src.country_code = src.country.toUpperCase();
    src.country = countryName(src.country);
  }
  const venue: Venue = {
    id: v.id, name: v.name, lat: v.lat, lon: v.lon,
    type_id: v.type.type_id, type: v.type.type, category: v.type.category, sub_category: v.type.sub_category,
    radius: Math.round(v.radius ?? v.type.radius), popularity: v.popularity ?? UNCOUNTED,
  };
  if (v.brand) venue.brand = v.brand;
  const address = completeAddress(src, v.lat, v.lon);
  if (Object.keys(address).length > 0) venue.address = address;
  return venue;
}
