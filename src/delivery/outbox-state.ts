/** The outbox's records: what is stored per entry, what senders get, and how results come back. */
import type { Database, RootDatabase } from 'lmdb';

export type { EntryKey, EntryState, ListedEntry, OutboxEntry, Payload, Results, TriggerStatus } from '../state/outbox-types.js';
import type { EntryState } from '../state/outbox-types.js';

/**
 * A pending state with a new schedule, built field by field rather than spread: one object shape
 * (and one shared msgpackr structure) for all, and optional fields only when set.
 */
export function state(cur: EntryState, nextAt: number, attempts = cur.attempts, firstAttemptAt = cur.first_attempt_at): EntryState {
  const s: EntryState = { id: cur.id, app_key: cur.app_key, status: 'pending', attempts, next_at: nextAt, created_at: cur.created_at };
  if (firstAttemptAt !== undefined) s.first_attempt_at = firstAttemptAt;
  if (cur.replayed_at !== undefined) s.replayed_at = cur.replayed_at;
  if (cur.last_error !== undefined) s.last_error = cur.last_error;
  return s;
}

/**
 * Outboxes written by earlier versions also kept a global schedule, [next_at, app_key, id]: its
 * entries move to the per-app one (unless that was built already), then it is emptied.
 */
export function migrateGlobalSchedule(root: RootDatabase, byApp: Database<number, [string, number, string]>): void {
  const legacy = root.openDB<number, [number, string, string]>({ name: 'due' });
  if (legacy.getCount() === 0) return;
  root.transactionSync(() => {
    if (byApp.getCount() === 0) for (const { key, value } of legacy.getRange()) byApp.put([key[1], key[0], key[2]], value);
    for (const key of legacy.getKeys()) legacy.remove(key);
  });
}
