/**
 * The venue store as the detection core sees it. Mirrors src/venues/types.ts (written by the
 * venue-store work); structural typing lets either implementation be passed in.
 */
import type { Address } from '../schemas/visit.js';

export interface Venue {
  id: string; name: string; lat: number; lon: number;
  type_id: number; type: string;
  /** Level-1 Foursquare name, e.g. "Dining and Drinking". */
  category: string;
  /** Most specific category name. */
  sub_category: string;
  /** Footprint radius, metres. */
  radius: number;
  /** Check-ins, 0 when unknown. */
  popularity: number;
  brand?: string;
  address?: Address;
}

export interface VenueStore {
  readonly id: string;
  readonly count: number;
  /** Nearest first. */
  near(lat: number, lon: number, radiusM: number, max: number): Array<{ venue: Venue; distance: number }>;
  get(index: number): Venue | undefined;
  close(): void;
}
