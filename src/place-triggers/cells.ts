/**
 * The venues an app's place triggers can fire at, by grid cell, kept per thread for each compiled
 * trigger set and served store. A cell lists every matching venue whose largest trigger circle
 * (its radius for the venue's triggers, radiusFor) reaches into the cell, so a fix reads the one
 * cell it is in, and tests those circles from flat arrays (the venue's position and that radius)
 * before anything else; only a fix that is inside one goes on to the exact test (match.ts). A cell
 * is searched in the venue index once, the first time a fix comes into it; a matching venue is read
 * and matched once a set (kept by record index with its largest radius), not once for each of the
 * neighbouring cells whose searches reach it.
 *
 * Cells are CELL_REACH of the set's reach wide, at least MIN_CELL_M: small, so that a cell's list is
 * about the venues whose circles cover it and not those of a wider square around it (a fix read
 * 4 to 12 cells as wide as the reach before, and measured every matching venue in them). Venues
 * that match no trigger are remembered too, one byte a venue, so a cell's search reads the
 * records of matching venues only (or not yet known ones). Memory: the store's venue count in
 * bytes and at most MAX_CELLS lists per set (and the matching venues they hold), per detection
 * thread; the latest MAX_SETS sets are kept (a new store or a change of the triggers starts a new one).
 */
import { M_PER_DEG } from '../geo/distance.js';
import type { VenueStore } from '../venues/store.js';
import type { Venue } from '../venues/types.js';
import { radiusFor, triggersOf, type CompiledTrigger, type PlaceMatcher } from './compile.js';

/** A matching venue, its triggers and their largest radius around it (metres). */
export interface Hit { v: Venue; cs: readonly CompiledTrigger[]; r: number }

/** One cell's venues: hit i at (lat[i], lon[i]) with its largest trigger radius r[i] (metres). */
export interface Cell { n: number; lat: Float64Array; lon: Float64Array; r: Float64Array; hits: Hit[] }

const MIN_CELL_M = 40;
const CELL_REACH = 0.5;
const MAX_CELLS = 200_000;
const MAX_SETS = 16;
const NO = 2, YES = 1;
const RAD = Math.PI / 180;

/** `hits`: the matching venues met, by record index, so that a venue a cell list holds is read and matched once, not once a cell. */
interface Cells { store: string; deg: number; lists: Map<number, Cell>; verdict: Uint8Array | null; hits: Map<number, Hit> }
const sets = new Map<PlaceMatcher, Cells>();

function cellsOf(matcher: PlaceMatcher, venues: VenueStore): Cells {
  const c = sets.get(matcher);
  if (c && c.store === venues.id) return c;
  if (sets.size >= MAX_SETS) sets.delete(sets.keys().next().value as PlaceMatcher);
  const next: Cells = {
    store: venues.id, deg: Math.max(matcher.reach * CELL_REACH, MIN_CELL_M) / M_PER_DEG, lists: new Map(),
    verdict: venues.boxIndexes ? new Uint8Array(venues.count) : null, hits: new Map(),
  };
  sets.set(matcher, next);
  return next;
}

/** The cell a point is in: every matching venue whose trigger circles reach into it. */
export function cellAt(matcher: PlaceMatcher, venues: VenueStore, lat: number, lon: number): Cell {
  const cells = cellsOf(matcher, venues);
  const y = Math.floor(lat / cells.deg), x = Math.floor(lon / cells.deg);
  // Cell columns stay below 1e7 (360° in cells of at least 10 m), so the key is one number.
  const key = y * 1e7 + x;
  return cells.lists.get(key) ?? build(cells, matcher, venues, y, x, key);
}

function build(cells: Cells, matcher: PlaceMatcher, venues: VenueStore, y: number, x: number, key: number): Cell {
  const { deg, verdict } = cells;
  const lat0 = y * deg, lon0 = x * deg, lat = lat0 + deg / 2, lon = lon0 + deg / 2;
  const kx = Math.max(0.01, Math.cos(lat * RAD));
  const hits: Hit[] = [];
  const keep = (h: Hit) => {
    const v = h.v;
    // Metres from the venue to the cell's nearest point: the circle reaches in when it is within r.
    const dy = Math.max(lat0 - v.lat, 0, v.lat - (lat0 + deg)) * M_PER_DEG;
    const dx = Math.max(lon0 - v.lon, 0, v.lon - (lon0 + deg)) * M_PER_DEG * kx;
    if (Math.sqrt(dx * dx + dy * dy) > h.r + 1) return; // a metre to spare for the cosine's variation over the cell
    hits.push(h);
  };
  // A circle round the cell (its half diagonal) and the set's reach around it.
  const around = (deg * M_PER_DEG * Math.SQRT1_2) + matcher.reach + 1;
  if (verdict && venues.boxIndexes) {
    for (const i of venues.boxIndexes(lat, lon, around)) {
      const seen = verdict[i];
      if (seen === NO) continue;
      let h = seen === YES ? cells.hits.get(i) : undefined;
      if (!h) {
        const v = venues.get(i);
        if (!v) continue;
        const cs = triggersOf(matcher, v);
        verdict[i] = cs.length ? YES : NO;
        if (!cs.length) continue;
        cells.hits.set(i, (h = hitOf(v, cs)));
      }
      keep(h);
    }
  } else {
    for (const { venue: v } of venues.near(lat, lon, around, 100_000)) {
      const cs = triggersOf(matcher, v);
      if (cs.length) keep(hitOf(v, cs));
    }
  }
  const n = hits.length;
  const cell: Cell = { n, lat: new Float64Array(n), lon: new Float64Array(n), r: new Float64Array(n), hits };
  for (let i = 0; i < n; i++) { cell.lat[i] = hits[i].v.lat; cell.lon[i] = hits[i].v.lon; cell.r[i] = hits[i].r; }
  // The matched venues are kept with the lists and dropped with them (a YES verdict then reads the record again).
  if (cells.lists.size >= MAX_CELLS) { cells.lists.clear(); cells.hits.clear(); }
  cells.lists.set(key, cell);
  return cell;
}

function hitOf(v: Venue, cs: readonly CompiledTrigger[]): Hit {
  let r = 0;
  for (const c of cs) r = Math.max(r, radiusFor(c, v));
  return { v, cs, r };
}
