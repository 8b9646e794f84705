/**
 * Deleting an app (contract §7): its record first (its key answers 401 unknown_app at once), then
 * everything stored for it, each kind through its own per-app operation: users, learned values,
 * geofences and presence (kinds.ts `records`), the app's registered beacons, the outbox's
 * entries, pending and dead, and its recent detections. Running it again finishes what a crash interrupted.
 */
import type { AppRegistry } from '../apps/registry.js';
import type { PrivacyKinds } from './kinds.js';
import { setImmediate as yieldTurn } from 'node:timers/promises';

const BATCH = 2000;

export interface DeletedApp { users: number; learned: number; geofences: number; geofence_presence: number; triggers: number; recent_detections: number; beacons: number; place_triggers: number }

export async function deleteApp(apps: AppRegistry, s: PrivacyKinds, app: string): Promise<DeletedApp | null> {
  const known = await apps.delete(app);
  // The app's requests already past their signature store what they detected: removed with the rest.
  const out = await removeAfterOwnRequests(apps, s, app);
  const any = Object.values(out).some((n) => n > 0);
  return known || any ? out : null;
}

/**
 * Once this node's requests of the app have ended, everything stored for it removed: after this
 * node's own deletion, and after another node's (apps/registry.ts `onDeletedElsewhere`), where the
 * requests this node was handling when the deletion reached it may have stored after it.
 */
export async function removeAfterOwnRequests(apps: AppRegistry, s: PrivacyKinds, app: string): Promise<DeletedApp> {
  await apps.inFlight.drained(app);
  return removeAppData(s, app);
}

async function removeAppData(s: PrivacyKinds, app: string): Promise<DeletedApp> {
  const out: DeletedApp = { ...await s.records.deleteApp(app), triggers: 0, recent_detections: 0, beacons: 0, place_triggers: 0 };
  if (s.beacons) out.beacons = await s.beacons.deleteApp(app);
  if (s.placeTriggers) out.place_triggers = await s.placeTriggers.dropApp(app);
  for (let n: number; (n = await s.outbox.deleteApp(app, BATCH)) > 0;) { out.triggers += n; await yieldTurn(); }
  if (s.recent) out.recent_detections = await s.recent.deleteApp(app);
  return out;
}
