/** Turns one request's detections into trigger responses (interface 2.6, contract §3). */
import type { Trigger } from '../schemas/visit.js';
import type { DetectOutcome } from '../schemas/detect-outcome.js';
import { newTriggerId } from './trigger-id.js';

/** One trigger per visit, then one per geofence event (with `geofence_event` in place of `visit`). */
export function triggersOf(appKey: string, requestId: string, out: Extract<DetectOutcome, { ok: true }>, _now: number): Trigger[] {
  const user_info = { ...out.user_info, app_key: appKey };
  const id = () => newTriggerId(); // in creation order: see trigger-id.ts
  const visits: Trigger[] = out.items.map((item) => ({
    data: {
      id: id(),
      request_id: requestId,
      ...(item.event_id !== undefined ? { event_id: item.event_id } : {}),
      user_info,
      visit: item.visit,
    },
    result: 'SUCCESS',
  }));
  const fences: Trigger[] = out.geofence_events.map((geofence_event) => ({
    data: { id: id(), request_id: requestId, user_info, geofence_event },
    result: 'SUCCESS',
  }));
  return [...visits, ...fences];
}
