/**
 * The venue record as stored in LMDB and handed to detection. `Address` is the interface's
 * estimated_address object (contract 2.8): every field optional, all strings.
 */
export interface Address {
  street_address?: string;
  city?: string;
  state?: string;
  country?: string;
  postal_code?: string;
  formatted_city?: string;
  formatted_address?: string;
}

export interface Venue {
  id: string;
  name: string;
  lat: number;
  lon: number;
  type_id: number;
  /** The type's own name (the most specific category name); the place object's `type`. */
  type: string;
  /** Level-1 name of the taxonomy, e.g. "Dining and Drinking". */
  category: string;
  /** The most specific name, e.g. "Donburi Restaurant". */
  sub_category: string;
  /** Footprint radius in metres: from geometry when the source has it, else a per-type default. */
  radius: number;
  /**
   * Visits or check-ins the source counted; UNCOUNTED when the source counts none (an OpenStreetMap
   * point). Unknown is not zero: a venue a check-in service lists with 0 has been counted.
   */
  popularity: number;
  brand?: string;
  address?: Address;
}

/** `popularity` of a venue whose source does not count visits. */
export const UNCOUNTED = -1;

export type ImportFormat = 'osm' | 'jsonl' | 'tsmc' | 'fsq-os-places' | 'overture';

export interface BadRow {
  /** 1-based line number in the (decompressed) input; for osm, the object id instead. */
  line: number | string;
  reason: string;
}

export interface ImportReport {
  format: ImportFormat;
  file: string;
  out: string;
  /** The version directory that is now live (relative to out). */
  version: string;
  rows: number;
  venues: number;
  bad: number;
  /** The first ~100 bad rows; `bad` counts them all. */
  bad_rows: BadRow[];
  /** Source categories that did not resolve in the taxonomy, with counts (kept as type "Unknown"). */
  unmapped_categories: Record<string, number>;
  /** Places the source marks closed, dropped (fsq-os-places, overture). */
  closed?: number;
  seconds: number;
}
