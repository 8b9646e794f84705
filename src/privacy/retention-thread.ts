/**
 * Retention in the embedded engine (StateKit.retention of server/kit-lmdb.ts): users from the
 * time index of the users environment (users/touch.ts) and dead triggers from the outbox, on a
 * thread of its own (sweep-thread.ts: why). It records the touch slot width in the environment
 * first: the detection threads write the index with the width found there.
 */
import type { RootDatabase } from 'lmdb';
import type { RetentionContext, RetentionRun } from '../state/types.js';
import { SLOT_KEY } from '../users/touch.js';
import { startSweepThread } from './sweep-thread.js';

export function threadRetention(dataDir: string, users: RootDatabase, ctx: RetentionContext): RetentionRun {
  const r = ctx.retention;
  if (users.get(SLOT_KEY) !== r.slotMs) users.putSync(SLOT_KEY, r.slotMs);
  const thread = r.userRetentionMs > 0 || r.deadRetentionMs > 0 ? startSweepThread({ dataDir, logLevel: ctx.logLevel, ...r }, ctx.metrics) : null;
  const none = { users: 0, geofence_presence: 0, dead_triggers: 0 };
  return {
    removed: () => thread?.removed ?? none,
    enter: () => thread?.enter(),
    leave: () => thread?.leave(),
    close: async () => { await thread?.stop(); },
  };
}
