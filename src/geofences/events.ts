/**
 * Entry, exit and dwell events from a user's fixes, pure: the index answers what each fix is
 * clearly inside or straddling, and the user's presence (the fences they are inside) carries the
 * hysteresis from fix to fix and request to request.
 * - clearly inside a fence the user is not in: entry;
 * - clearly outside (not even straddling) a fence the user is in: exit;
 * - straddling the edge: nothing changes;
 * - inside a fence with a `dwell` since its entry for that many seconds by the fixes' own times:
 *   one dwell event, at the first fix at or after entry + dwell (contract §4). Only fences with a
 *   dwell keep an entry time (`dwell` of the presence), until their event fires or the user leaves,
 *   so fences without one cost nothing more;
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
import type { Metadata } from '../schemas/metadata.js';
import { stampMs } from '../time/stamp.js';
import type { FenceIndex } from './fence-index.js';
import { INSIDE, type Class } from './match.js';
import type { FencePresence } from '../users/presence.js';

export interface Fix { timestamp: string; lat: number; long: number; accuracy?: number }

/** A request's located signals as fixes, in request order: `evaluate` reads their times and orders them. */
export function asFixes(signals: readonly Signal[]): Fix[] {
  const out: Fix[] = [];
  for (const s of signals) if (s.location) out.push({ timestamp: s.timestamp, lat: s.location.lat, long: s.location.long, accuracy: s.location.accuracy });
  return out;
}

export type { FencePresence };
export type Presence = FencePresence;

export const NO_PRESENCE: FencePresence = Object.freeze({ inside: [], last: 0 }) as FencePresence;

/** What an event says of its fence; dwell absent is 0, metadata absent null. */
export interface FenceInfo { tag: string | null; push_text: string | null; dwell?: number; metadata?: Metadata | null }

export interface FenceView {
  index: FenceIndex;
  info(id: string): FenceInfo | undefined;
}

export interface Evaluation { events: GeofenceEvent[]; presence: FencePresence; changed: boolean }

export function evaluate(view: FenceView, before: FencePresence, fixes: readonly Fix[], now: number): Evaluation {
  const { index } = view;
  const inside = new Set(before.inside);
  const events: GeofenceEvent[] = [];
  let last = before.last;
  let changed = false;
  // Copied only when the user has dwell counts running: fences without a dwell allocate nothing here.
  let dwell: Record<string, number> | undefined = before.dwell && { ...before.dwell };
  let pending = dwell ? Object.keys(dwell).length : 0;
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
      const live = index.isLive(id, now);
      if (live && here.has(id)) continue;
      inside.delete(id);
      if (pending > 0 && id in dwell!) { delete dwell![id]; pending--; }
      changed = true;
      if (!live) continue;
      events.push(event('exit', id, f, view.info(id)));
      last = t;
    }
    // Still inside (no exit between) a dwell's time after the entry: its one dwell event.
    if (pending > 0) {
      for (const id in dwell!) {
        const info = view.info(id);
        const s = info?.dwell ?? 0;
        if (s > 0 && t < dwell![id] + s * 1000) continue;
        // A dwell updated to 0 meanwhile: that stay raises none.
        if (s > 0) events.push(event('dwell', id, f, info));
        delete dwell![id]; pending--;
        changed = true;
        last = t;
      }
    }
    for (const [id, c] of here) {
      if (c !== INSIDE || inside.has(id)) continue;
      inside.add(id);
      const info = view.info(id);
      events.push(event('entry', id, f, info));
      if ((info?.dwell ?? 0) > 0) { (dwell ??= {})[id] = t; pending++; }
      changed = true;
      last = t;
    }
  }
  const presence: FencePresence = { inside: [...inside], last };
  if (pending > 0) presence.dwell = dwell;
  return { events, presence, changed };
}

/** The events of an anonymous request: the crossings within it, from where its earliest fix is. */
export function evaluateAlone(view: FenceView, fixes: readonly Fix[], now: number): GeofenceEvent[] {
  let first = Infinity;
  for (const f of fixes) first = Math.min(first, stampMs(f.timestamp));
  if (!Number.isFinite(first)) return [];
  const start = evaluate(view, NO_PRESENCE, fixes.filter((f) => stampMs(f.timestamp) === first), now).presence;
  return evaluate(view, { inside: start.inside, last: first }, fixes, now).events;
}

function event(type: GeofenceEvent['type'], id: string, f: Fix, info: FenceInfo | undefined): GeofenceEvent {
  const location: GeofenceEvent['location'] = { lat: f.lat, long: f.long };
  if (f.accuracy !== undefined) location.accuracy = f.accuracy;
  return { type, geofence_id: id, tag: info?.tag ?? null, push_text: info?.push_text ?? null, metadata: info?.metadata ?? null, timestamp: f.timestamp, location };
}
