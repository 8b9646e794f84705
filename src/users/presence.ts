/**
 * Where a user is, by trigger kind (contract §4, §11): the fences they are inside, the venues of
 * place triggers (places, added by the place-trigger matcher) and their country. One part per kind,
 * all in the user's record (records.ts `p`), so one commit per request covers visits and
 * presence in both engines, and erase, export and retention reach presence with the record.
 */
import type { GeofenceEvent, PlaceEvent, RegionEvent } from '../schemas/visit.js';

/** The fences a user is inside (geofences/events.ts evaluates it). */
export interface FencePresence {
  /** Ids of the fences the user is inside. */
  inside: string[];
  /** Ms of the latest fix that changed the presence; 0 for a new user. */
  last: number;
  /** Fences with a dwell the user is inside whose dwell event has not fired: id → ms of the entry. */
  dwell?: Record<string, number>;
}

/** The country a user is in (regions/countries.ts evaluates it). */
export interface CountryPresence {
  /** Where the last change left the user: a country's code, '' at sea. */
  code: string;
  /** Ms of the fix of the last change. */
  last: number;
}

export interface UserPresence {
  fences?: FencePresence;
  /** Place triggers' presence: its kind's own shape (the place-trigger matcher's). */
  places?: unknown;
  country?: CountryPresence;
}

export const NO_USER_PRESENCE: UserPresence = Object.freeze({}) as UserPresence;

/** Whether a presence holds anything worth keeping. */
export const holdsPresence = (p: UserPresence | undefined): boolean =>
  !!p && ((p.fences?.inside.length ?? 0) > 0 || p.places !== undefined || p.country !== undefined);

// The presence step of a detection: each trigger kind that applies to the app (fences, places,
// countries) reads its part of the user's presence, adds its events and answers its new part.
// The engine (pipeline/thread-embedded.ts, thread-cluster.ts) runs the composed step on the record
// it commits, inside the same commit as the visits; a request without a user runs each kind's
// `alone` (the crossings within the request). A kind that does not apply to the app (no fences, no
// place triggers, no region_events) answers nothing at once, and an unchanged presence is not
// written. It lives here, beside the shapes it composes, so that the kinds
// (features) and the engines (shell) both import it downwards.

export interface TriggerEvents { geofence: GeofenceEvent[]; place: PlaceEvent[]; region: RegionEvent[] }

export const noEvents = (): TriggerEvents => ({ geofence: [], place: [], region: [] });

export interface PresenceStep { events: TriggerEvents; presence: UserPresence; changed: boolean }

/** A user's presence evaluated against a request's fixes, wherever the engine keeps the record. */
export type PresenceRun = (before: UserPresence) => PresenceStep;

export interface PresenceKind {
  /** Pushes this kind's events into `out`; answers its changed part, or undefined when unchanged. */
  step(before: UserPresence, out: TriggerEvents): Partial<UserPresence> | undefined;
  /** A request without a user: pushes the events of the crossings within the request alone. */
  alone(out: TriggerEvents): void;
}

/** The kinds' steps as one run. */
export function presenceRun(kinds: readonly PresenceKind[]): PresenceRun {
  return (before) => {
    const events = noEvents();
    let presence = before;
    let changed = false;
    for (const k of kinds) {
      const part = k.step(before, events);
      if (part) { presence = { ...presence, ...part }; changed = true; }
    }
    return { events, presence, changed };
  };
}

/** The events of a request without a user. */
export function presenceAlone(kinds: readonly PresenceKind[]): TriggerEvents {
  const out = noEvents();
  for (const k of kinds) k.alone(out);
  return out;
}
