/**
 * A small in-memory venue store over a grid, for tests and the offline accuracy harness.
 * Reads the shared jsonl venue files ({id, name, category, category_id, lat, lon, address?,
 * checkins?|popularity?, brand?}). Not for production sizes: the real store is src/venues/.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Address } from '../venues/types.js';
import { UNCOUNTED } from '../venues/types.js';
import type { Venue, VenueStore } from './venue.js';
import { KINDS, KIND_RADIUS, kindOfText } from './kinds.js';
import { M_PER_DEG, metres } from '../geo/distance.js';

const CELL = 0.001;

interface Row {
  id: string | number; name?: string | null; category?: string; category_id?: string; lat: number; lon: number;
  checkins?: number; popularity?: number; brand?: string; radius?: number;
  address?: { housenumber?: string; street?: string; postcode?: string; city?: string; country?: string };
}

function toAddress(a: Row['address']): Address | undefined {
  if (!a) return undefined;
  const street = [a.housenumber, a.street].filter(Boolean).join(' ');
  const out: Address = {};
  if (street) out.street_address = street;
  if (a.city) out.city = a.city;
  if (a.postcode) out.postal_code = a.postcode;
  if (a.country) out.country = a.country;
  return Object.keys(out).length ? out : undefined;
}

export function venueFromRow(r: Row, index: number): Venue {
  const sub = String(r.category ?? '').replace(/_/g, ' ');
  const kind = kindOfText(sub);
  return {
    id: String(r.id), name: r.name ?? '', lat: r.lat, lon: r.lon, type_id: index, type: sub,
    category: KINDS[kind], sub_category: sub, radius: r.radius ?? KIND_RADIUS[KINDS[kind]],
    popularity: r.popularity ?? r.checkins ?? UNCOUNTED,
    ...(r.brand ? { brand: r.brand } : {}), ...(toAddress(r.address) ? { address: toAddress(r.address) } : {}),
  };
}

export class MemoryVenueStore implements VenueStore {
  readonly id: string;
  readonly counted: number;
  private readonly venues: Venue[];
  private readonly grid = new Map<number, number[]>();

  constructor(venues: Venue[], id = 'memory') {
    this.id = id;
    this.venues = venues;
    this.counted = venues.filter((v) => v.popularity >= 0).length;
    venues.forEach((v, i) => {
      const k = key(Math.floor(v.lat / CELL), Math.floor(v.lon / CELL));
      let cell = this.grid.get(k);
      if (!cell) this.grid.set(k, (cell = []));
      cell.push(i);
    });
  }

  static fromJsonl(file: string): MemoryVenueStore {
    let buf = fs.readFileSync(file);
    if (file.endsWith('.gz')) buf = zlib.gunzipSync(buf);
    const rows = buf.toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Row);
    return new MemoryVenueStore(rows.map(venueFromRow), file);
  }

  get count(): number { return this.venues.length; }
  get(index: number): Venue | undefined { return this.venues[index]; }
  close(): void {}

  near(lat: number, lon: number, radiusM: number, max: number): Array<{ venue: Venue; distance: number }> {
    const dLat = radiusM / M_PER_DEG, dLon = radiusM / (M_PER_DEG * Math.cos((lat * Math.PI) / 180));
    const out: Array<{ venue: Venue; distance: number }> = [];
    for (let y = Math.floor((lat - dLat) / CELL); y <= Math.floor((lat + dLat) / CELL); y++) {
      for (let x = Math.floor((lon - dLon) / CELL); x <= Math.floor((lon + dLon) / CELL); x++) {
        const cell = this.grid.get(key(y, x));
        if (!cell) continue;
        for (const i of cell) {
          const v = this.venues[i];
          const d = metres(lat, lon, v.lat, v.lon);
          if (d <= radiusM) out.push({ venue: v, distance: d });
        }
      }
    }
    out.sort((a, b) => a.distance - b.distance);
    if (out.length > max) out.length = max;
    return out;
  }
}

const key = (y: number, x: number) => y * 1_000_003 + x;
