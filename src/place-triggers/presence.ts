/**
 * Place triggers as a trigger kind of the presence step (users/presence.ts): the app's
 * compiled triggers and the served venue store, evaluated against the request's fixes
 * (match.ts). An app without place triggers gets no view: nothing is searched or gathered.
 * Given the request's signals with the times detection parsed (`timed`, integrity's checks), the
 * matcher reads those instead of the fixes: no timestamp parsed twice, no fix objects made.
 */
import type { Fix } from '../geofences/events.js';
import type { PresenceKind } from '../users/presence.js';
import type { TimedSignals } from './fix-columns.js';
import { evaluatePlaces, evaluatePlacesOf, placesAlone, placesAloneOf, type PlacePresence, type PlaceStep, type PlaceView } from './match.js';
import type { PlaceEvent } from '../schemas/visit.js';

export function placeKind(places: () => PlaceView | undefined, fixes: () => readonly Fix[], timed: () => TimedSignals | undefined = () => undefined): PresenceKind {
  /** The parsed times when they are one a signal (anything else: the fixes, parsed here). */
  const times = () => {
    const t = timed();
    return t && t.times.length === t.signals.length ? t : undefined;
  };
  const step = (view: PlaceView, before: PlacePresence | undefined): PlaceStep | undefined => {
    const t = times();
    if (t) return evaluatePlacesOf(view, before, t);
    const f = fixes();
    return f.length ? evaluatePlaces(view, before, f) : undefined;
  };
  const alone = (view: PlaceView): PlaceEvent[] => {
    const t = times();
    if (t) return placesAloneOf(view, t);
    const f = fixes();
    return f.length ? placesAlone(view, f) : [];
  };
  return {
    step(before, out) {
      const view = places();
      const ev = view && step(view, before.places as PlacePresence | undefined);
      if (!ev) return undefined;
      for (const e of ev.events) out.place.push(e);
      // Kept even when inside nothing: its `last` is what makes a retried request repeat nothing.
      return ev.changed ? { places: ev.presence } : undefined;
    },
    alone(out) {
      const view = places();
      if (view) for (const e of alone(view)) out.place.push(e);
    },
  };
}
