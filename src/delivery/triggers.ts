/** Turns one request's detections into trigger responses (interface 2.6, contract §3). */
import type { Integrity, Trigger } from '../schemas/visit.js';
import { receives, type Delivery, type IntegrityMode } from '../schemas/app.js';
import { passed } from '../integrity/flags.js';
import type { DetectOutcome } from '../schemas/detect-outcome.js';
import { newTriggerId } from './trigger-id.js';

/**
 * One trigger per visit, then one per geofence event (with `geofence_event` in place of `visit`),
 * of the kinds the app receives (contract §3 "Which events"; `delivery.events`, default all).
 * With `integrity: "drop"` (contract §12) the visits and events that did not pass are left out,
 * and `dropped` is told how many.
 */
export function triggersOf(appKey: string, requestId: string, out0: Extract<DetectOutcome, { ok: true }>, delivery: Delivery,
  integrity: IntegrityMode = 'flag', dropped?: (n: number) => void): Trigger[] {
  const out = integrity === 'drop' ? trusted(out0, dropped) : out0;
  const user_info = { ...out.user_info, app_key: appKey };
  const id = () => newTriggerId(); // in creation order: see trigger-id.ts
  const items = out.items.filter((item) => receives(delivery, item.visit.event_type === 'transit' ? 'transit' : 'visit'));
  const visits: Trigger[] = items.map((item) => ({
    data: {
      id: id(),
      request_id: requestId,
      ...(item.event_id !== undefined ? { event_id: item.event_id } : {}),
      user_info,
      visit: item.visit,
    },
    result: 'SUCCESS',
  }));
  const fences: Trigger[] = (receives(delivery, 'geofence') ? out.geofence_events : []).map((geofence_event) => ({
    data: { id: id(), request_id: requestId, user_info, geofence_event },
    result: 'SUCCESS',
  }));
  const places: Trigger[] = (receives(delivery, 'place') ? out.place_events : []).map((place_event) => ({
    data: { id: id(), request_id: requestId, user_info, place_event },
    result: 'SUCCESS',
  }));
  const regions: Trigger[] = (receives(delivery, 'region') ? out.region_events : []).map((region_event) => ({
    data: { id: id(), request_id: requestId, user_info, region_event },
    result: 'SUCCESS',
  }));
  return [...visits, ...fences, ...places, ...regions];
}

/** The outcome without what did not pass (integrity/flags.ts `passed`). */
function trusted(out: Extract<DetectOutcome, { ok: true }>, dropped?: (n: number) => void): Extract<DetectOutcome, { ok: true }> {
  let n = 0;
  const keep = <T extends { integrity?: Integrity }>(list: T[]): T[] => {
    const kept = list.filter(passed);
    n += list.length - kept.length;
    return kept;
  };
  const items = out.items.filter((i) => passed(i.visit));
  n += out.items.length - items.length;
  const t = { ...out, items, geofence_events: keep(out.geofence_events), place_events: keep(out.place_events), region_events: keep(out.region_events) };
  if (n) dropped?.(n);
  return t;
}
