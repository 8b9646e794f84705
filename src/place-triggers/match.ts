/**
 * Place events from a user's fixes, pure (contract §11 with §4's rules): per venue and per
 * trigger, a fix clearly inside the trigger's radius around a matching venue is an entry, one
 * clearly outside after being inside an exit (a fix whose accuracy circle straddles the edge
 * changes nothing), and `dwell` seconds inside by the fixes' own time one dwell event a stay.
 * Fixes no later than the last that changed anything are skipped (a retried request repeats
 * nothing). A trigger deleted, or a venue gone from a newly served store, leaves presence
 * silently. Without a user, `placesAlone` lets the earliest fix say where the device is.
 *
 * Issue 42 bounds what this adds to a detection request (10 %): the fixes are read as columns
 * (fix-columns.ts) from the request's signals with the times detection already parsed, in time
 * order by an index, and the venues the user is inside carry their own entry time and dwell
 * flag, so a fix allocates nothing and builds no key unless it changes something.
 */
import type { Fix } from '../geofences/events.js';
import { classify, distanceM, INSIDE, OUTSIDE } from '../geofences/match.js';
import type { PlaceEvent } from '../schemas/visit.js';
import type { VenueStore } from '../venues/store.js';
import type { Venue } from '../venues/types.js';
import { radiusFor, triggersOf, type CompiledTrigger, type PlaceMatcher } from './compile.js';
import { cellAt } from './cells.js';
import { columnsOfFixes, columnsOfSignals, inTimeOrder, type FixColumns, type TimedSignals } from './fix-columns.js';
import { M_PER_DEG } from '../geo/distance.js';

const RAD = Math.PI / 180;

/** Where a user is, as kept in their record: `trigger id + " " + venue id` → [entry ms, dwell raised 0|1]. */
export interface PlacePresence { in: Record<string, [number, number]>; last: number }

export interface PlaceView { matcher: PlaceMatcher; venues: VenueStore }

export interface PlaceStep { events: PlaceEvent[]; presence: PlacePresence; changed: boolean }

/** A venue and trigger the user is inside, resolved once a request: exits are tested on every fix. */
interface Held { key: string; c: CompiledTrigger; v: Venue; r: number; since: number; dwelt: number; out: boolean }

/** The step of a user's presence over fixes given one by one (the tests', a caller without signals). */
export function evaluatePlaces(view: PlaceView, before: PlacePresence | undefined, fixes: readonly Fix[]): PlaceStep {
  const cols = columnsOfFixes(fixes);
  return evaluateColumns(view, before, cols, inTimeOrder(cols, before?.last ?? 0));
}

/** The same step over a request's signals and the times detection parsed (pipeline/detect.ts). */
export function evaluatePlacesOf(view: PlaceView, before: PlacePresence | undefined, timed: TimedSignals): PlaceStep {
  const cols = columnsOfSignals(timed);
  return evaluateColumns(view, before, cols, inTimeOrder(cols, before?.last ?? 0));
}

function evaluateColumns(view: PlaceView, before: PlacePresence | undefined, cols: FixColumns, m: number): PlaceStep {
  const { matcher, venues } = view;
  const events: PlaceEvent[] = [];
  let last = before?.last ?? 0;
  let changed = false;
  if (m === 0) return { events, presence: { in: { ...before?.in }, last }, changed };
  // What the user is inside, in presence order: a trigger deleted, or a venue gone from the store
  // or no longer matching, is left silently.
  const held: Held[] = [];
  if (before) {
    /** Venues met here, by id: presence names venues by id, the store finds them by index. */
    const known = new Map<string, Venue>();
    for (const key of Object.keys(before.in)) {
      const space = key.indexOf(' ');
      const c = matcher.byId.get(key.slice(0, space));
      const v = c && venueById(venues, key.slice(space + 1), known);
      if (!c || !v || !triggersOf(matcher, v).includes(c)) { changed = true; continue; }
      const [since, dwelt] = before.in[key];
      held.push({ key, c, v, r: radiusFor(c, v), since, dwelt, out: false });
    }
  }
  const { ord, t: times, lat: lats, lon: lons, acc: accs } = cols;
  let gone = 0;
  for (let k = 0; k < m; k++) {
    const i = ord[k];
    const t = times[i], lat = lats[i], lon = lons[i], acc = accs[i];
    // Exits first (leaving one shop for its neighbour reads in that order), then dwell.
    for (let j = 0; j < held.length; j++) {
      const h = held[j];
      if (h.out) continue;
      if (classify(distanceM(lat, lon, h.v.lat, h.v.lon) - h.r, acc) === OUTSIDE) {
        h.out = true;
        gone++;
        events.push(event('exit', h.c, h.v, cols, i));
        changed = true;
        last = t;
      } else if (h.c.rec.dwell > 0 && h.dwelt === 0 && t >= h.since + h.c.rec.dwell * 1000) {
        h.dwelt = 1;
        events.push(event('dwell', h.c, h.v, cols, i));
        changed = true;
        last = t;
      }
    }
    if (gone > 16 && gone > held.length / 2) { compact(held); gone = 0; }
    // No radius exceeds the reach: a fix vaguer than it is clearly inside nothing, and searches nothing.
    if (acc >= matcher.reach) continue;
    // The circles of the fix's cell, tested from the cell's arrays at the fix's cosine: a circle
    // the fix may be clearly inside (a metre and 0.1 % to spare) goes to the exact test.
    const cell = cellAt(matcher, venues, lat, lon);
    const kx = Math.cos(lat * RAD) * M_PER_DEG;
    for (let n = 0; n < cell.n; n++) {
      const lim = cell.r[n] * 1.001 + 1 - acc;
      if (lim <= 0) continue;
      const dy = (cell.lat[n] - lat) * M_PER_DEG, dx = (cell.lon[n] - lon) * kx;
      if (dx * dx + dy * dy > lim * lim) continue;
      const { v, cs } = cell.hits[n];
      const distance = distanceM(lat, lon, v.lat, v.lon);
      if (distance + acc > matcher.reach) continue;
      for (const c of cs) {
        const r = radiusFor(c, v);
        if (classify(distance - r, acc) !== INSIDE || isHeld(held, c, v.id)) continue;
        held.push({ key: `${c.rec.id} ${v.id}`, c, v, r, since: t, dwelt: 0, out: false });
        events.push(event('entry', c, v, cols, i));
        changed = true;
        last = t;
      }
    }
  }
  const inside: Record<string, [number, number]> = {};
  for (const h of held) if (!h.out) inside[h.key] = [h.since, h.dwelt];
  return { events, presence: { in: inside, last }, changed };
}

/** Whether the user is inside this trigger's circle around this venue: held and not left. */
function isHeld(held: readonly Held[], c: CompiledTrigger, venueId: string): boolean {
  for (let j = 0; j < held.length; j++) {
    const h = held[j];
    if (h.c === c && !h.out && h.v.id === venueId) return true;
  }
  return false;
}

/** Drops the venues left, keeping the order of the rest. */
function compact(held: Held[]): void {
  let w = 0;
  for (const h of held) if (!h.out) held[w++] = h;
  held.length = w;
}

/** The events of a request without a user: the crossings within it, from where its earliest fix is. */
export function placesAlone(view: PlaceView, fixes: readonly Fix[]): PlaceEvent[] {
  return alone(view, columnsOfFixes(fixes));
}

/** placesAlone over a request's signals and the times detection parsed. */
export function placesAloneOf(view: PlaceView, timed: TimedSignals): PlaceEvent[] {
  return alone(view, columnsOfSignals(timed));
}

function alone(view: PlaceView, cols: FixColumns): PlaceEvent[] {
  let first = Infinity;
  for (let i = 0; i < cols.n; i++) first = Math.min(first, cols.t[i]);
  if (!Number.isFinite(first)) return [];
  const start = evaluateColumns(view, undefined, cols, inTimeOrder(cols, 0, first)).presence;
  // How long the device was already inside is unknown: those stays raise no dwell.
  for (const state of Object.values(start.in)) state[1] = 1;
  return evaluateColumns(view, { in: start.in, last: first }, cols, inTimeOrder(cols, first)).events;
}

function venueById(venues: VenueStore, id: string, known: Map<string, Venue>): Venue | undefined {
  let v = known.get(id);
  if (v) return v;
  const i = venues.indexOf(id);
  v = i === undefined ? undefined : venues.get(i);
  if (v) known.set(id, v);
  return v;
}

function event(type: PlaceEvent['type'], c: CompiledTrigger, v: Venue, cols: FixColumns, i: number): PlaceEvent {
  const at = cols.at[i];
  const location: PlaceEvent['location'] = { lat: at.lat, long: at.long };
  if (at.accuracy !== undefined) location.accuracy = at.accuracy;
  return {
    type, trigger_id: c.rec.id, tag: c.rec.tag, push_text: c.rec.push_text, metadata: c.rec.metadata,
    venue: { id: v.id, name: v.name, brand: v.brand ?? null, category: v.category, type_id: v.type_id || null },
    timestamp: cols.stamp[i], location,
  };
}
