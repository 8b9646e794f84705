/**
 * The reference of bench:presence's dwell question (issue 42: dwell bookkeeping adds nothing to
 * requests of apps with no dwell fences): geofences/events.ts `evaluate` as it is, with every line
 * of the dwell bookkeeping taken out (the copy of the counts, the pending count, the dwell check
 * after the exits, the entry time kept on entry). Kept beside the benchmark only: what an app
 * without dwell fences would cost if dwell did not exist, measured in the same run.
 */
import type { GeofenceEvent } from '../src/schemas/visit.js';
import { stampMs } from '../src/time/stamp.js';
import { INSIDE, type Class } from '../src/geofences/match.js';
import type { Evaluation, FenceInfo, FencePresence, FenceView, Fix } from '../src/geofences/events.js';

export function evaluateWithoutDwell(view: FenceView, before: FencePresence, fixes: readonly Fix[], now: number): Evaluation {
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
    for (const id of inside) {
      const live = index.isLive(id, now);
      if (live && here.has(id)) continue;
      inside.delete(id);
      changed = true;
      if (!live) continue;
      events.push(event('exit', id, f, view.info(id)));
      last = t;
    }
    for (const [id, c] of here) {
      if (c !== INSIDE || inside.has(id)) continue;
      inside.add(id);
      events.push(event('entry', id, f, view.info(id)));
      changed = true;
      last = t;
    }
  }
  return { events, presence: { inside: [...inside], last }, changed };
}

function event(type: GeofenceEvent['type'], id: string, f: Fix, info: FenceInfo | undefined): GeofenceEvent {
  const location: GeofenceEvent['location'] = { lat: f.lat, long: f.long };
  if (f.accuracy !== undefined) location.accuracy = f.accuracy;
  return { type, geofence_id: id, tag: info?.tag ?? null, push_text: info?.push_text ?? null, metadata: info?.metadata ?? null, timestamp: f.timestamp, location };
}
