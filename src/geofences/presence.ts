/**
 * Geofences as a trigger kind of the presence step (users/presence.ts): the app's fences as the
 * thread knows them when the step runs (in the cluster, after its copy caught up and the record
 * was read), evaluated against the request's fixes (events.ts). The fixes are gathered only when
 * the app has fences.
 */
import type { PresenceKind } from '../users/presence.js';
import { evaluate, evaluateAlone, NO_PRESENCE, type FenceView, type Fix } from './events.js';

export function fenceKind(fences: () => FenceView | undefined, fixes: () => readonly Fix[], now: number): PresenceKind {
  return {
    step(before, out) {
      const view = fences();
      if (!view || fixes().length === 0) return undefined;
      const ev = evaluate(view, before.fences ?? NO_PRESENCE, fixes(), now);
      for (const e of ev.events) out.geofence.push(e);
      return ev.changed ? { fences: ev.presence } : undefined;
    },
    alone(out) {
      const view = fences();
      if (view && fixes().length) for (const e of evaluateAlone(view, fixes(), now)) out.geofence.push(e);
    },
  };
}
