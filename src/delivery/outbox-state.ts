/** The outbox's records: what is stored per entry, what senders get, and how results come back. */
import type { Database, RootDatabase } from 'lmdb';

export type TriggerStatus = 'pending' | 'dead';

/**
 * What a sender sends: the trigger's id and its JSON as UTF-8 bytes exactly as serialised once,
 * at enqueue. Signed and sent as they are (a Buffer: undici and HMAC take it without copying).
 */
export interface Payload { id: string; body: Buffer }

/** The small, often rewritten part of an entry; the body is stored apart and never rewritten. */
export interface EntryState {
  id: string;
  app_key: string;
  status: TriggerStatus;
  attempts: number;
  /** ms: when the entry is next due (a claim leaves it as it is: leases are in memory). */
  next_at: number;
  created_at: number;
  /** ms of the first delivery attempt, for the 202 → first attempt metric. */
  first_attempt_at?: number;
  /** ms of the last replay of a dead entry: its retry window starts again from here. */
  replayed_at?: number;
  last_error?: string;
  /** ms when it was given up on (dead): its retention runs from here (privacy/retention.ts). */
  dead_at?: number;
}

export interface OutboxEntry extends EntryState, Payload {}

/** An entry as the admin API lists it: the trigger JSON as text. */
export interface ListedEntry extends EntryState { body: string }

export type EntryKey = Pick<EntryState, 'app_key' | 'id'>;

/** Results of sends, written in one transaction: many sends' outcomes cost about one commit. */
export interface Results {
  acks?: EntryKey[];
  retries?: Array<EntryKey & { at: number; error: string }>;
  kills?: Array<EntryKey & { error: string }>;
}

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
