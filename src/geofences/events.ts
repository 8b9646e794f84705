/**
 * Entry and exit events from a user's fixes, pure: the index answers what each fix is clearly
 * inside or straddling, and the user's presence (the fences they are inside) carries the
 * hysteresis from fix to fix and request to request.
 * - clearly inside a fence the user is not in: entry;
 * - clearly outside (not even straddling) a fence the user is in: exit;
 * - straddling the edge: nothing changes;
 * - a fence deleted or expired while the user was inside leaves presence silently (contract §4:
 *   a disabled geofence raises no events).
 * Fixes no later than the last fix that changed anything are skipped, so a retried or late request
 * neither repeats events nor undoes newer ones.
 * With no user (no advertising id, no user id) nothing is remembered between requests, so where
 * the device was before a request is unknown: `evaluateAlone` lets the request's earliest fix say
 * where it is (no event) and raises only the crossings its later fixes show. A device that stays
 * inside a fence and sends request after request is not "entering" it each time.
 */
import type { Signal } from '../schemas/detect-request.js';
import type { GeofenceEvent } from '../schemas/visit.js';
import { stampMs } from '../time/stamp.js';
import type { FenceIndex } from './fence-index.js';
import { INSIDE, type Class } from './match.js';

export interface Fix { timestamp: string; lat: number; long: number; accuracy?: number }

/** A request's located signals as fixes, in request order: `evaluate` reads their times and orders them. */
export function asFixes(signals: readonly Signal[]): Fix[] {
  const out: Fix[] = [];
  for (const s of signals) if (s.location) out.push({ timestamp: s.timestamp, lat: s.location.lat, long: s.location.long, accuracy: s.location.accuracy });
  return out;
}

export interface Presence {
  /** Ids of the fences the user is inside. */
  inside: string[];
  /** Ms of the latest fix that changed the presence; 0 for a new user. */
  last: number;
}

export const NO_PRESENCE: Presence = Object.freeze({ inside: [], last: 0 }) as Presence;

export interface FenceView {
  index: FenceIndex;
  /** tag and push_text of a fence, for the event. */
  info(id: string): { tag: string | null; push_text: string | null } | undefined;
}

export interface Evaluation { events: GeofenceEvent[]; presence: Presence; changed: boolean }

export function evaluate(view: FenceView, before: Presence, fixes: readonly Fix[], now: number): Evaluation {
  const { index } = view;
  const inside = new Set(before.inside);
  const events: GeofenceEvent[] = [];
  let last = before.last;
  let changed = false;
  const ordered = fixes
    .map((f) => ({ f, t: stampMs(f.timestamp) }))
    .filter((x) => Number.isFinite(x.t) && x.t > before.last)
    .sort((a, b) => a.t - b.t);
  for (const { f, t } of ordered) {
    const n = index.query(f.lat, f.long, f.accuracy ?? 0, now);
    const here = new Map<string, Class>();
    for (let i = 0; i < n; i++) here.set(index.idOf(index.hitSlots[i]), index.hitClass[i] as Class);
    // Exits before entries: leaving one fence for a neighbour reads in that order.
    for (const id of inside) {
      if (!index.isLive(id, now)) {
        inside.delete(id);
        changed = true;
      } else if (!here.has(id)) {
        inside.delete(id);
        events.push(event('exit', id, f, view));
        changed = true;
        last = t;
      }
    }
    for (const [id, c] of here) {
      if (c !== INSIDE || inside.has(id)) continue;
      inside.add(id);
      events.push(event('entry', id, f, view));
      changed = true;
      last = t;
    }
  }
  return { events, presence: { inside: [...inside], last }, changed };
}

/** The events of an anonymous request: the crossings within it, from where its earliest fix is. */
export function evaluateAlone(view: FenceView, fixes: readonly Fix[], now: number): GeofenceEvent[] {
  let first = Infinity;
  for (const f of fixes) first = Math.min(first, stampMs(f.timestamp));
  if (!Number.isFinite(first)) return [];
  const start = evaluate(view, NO_PRESENCE, fixes.filter((f) => stampMs(f.timestamp) === first), now).presence;
  return evaluate(view, { inside: start.inside, last: first }, fixes, now).events;
}

function event(type: 'entry' | 'exit', id: string, f: Fix, view: FenceView): GeofenceEvent {
  const info = view.info(id);
  const location: GeofenceEvent['location'] = { lat: f.lat, long: f.long };
  if (f.accuracy !== undefined) location.accuracy = f.accuracy;
  return { type, geofence_id: id, tag: info?.tag ?? null, push_text: info?.push_text ?? null, timestamp: f.timestamp, location };
}
