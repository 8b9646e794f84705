/** Turns one request's detections into trigger responses (interface 2.6, contract §3). */
import { randomBytes } from 'node:crypto';
import type { Trigger } from '../schemas/visit.js';
import type { DetectOutcome } from '../server/detect-task.js';

export function triggersOf(appKey: string, requestId: string, out: Extract<DetectOutcome, { ok: true }>, _now: number): Trigger[] {
  const user_info = { ...out.user_info, app_key: appKey };
  return out.items.map((item) => ({
    data: {
      id: 'tr_' + randomBytes(12).toString('hex'),
      request_id: requestId,
      ...(item.event_id !== undefined ? { event_id: item.event_id } : {}),
      user_info,
      visit: item.visit,
    },
    result: 'SUCCESS',
  }));
}
