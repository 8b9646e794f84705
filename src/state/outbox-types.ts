/**
 * The trigger queue (the outbox) as every part of Dwell sees it, whichever engine keeps it:
 * the embedded LMDB outbox (src/delivery/outbox.ts, one node) or JetStream streams shared by
 * every node (src/state/nats/outbox.ts). What each operation promises:
 * - `enqueue` resolves only once the triggers are durable (LMDB: flushed to disk; JetStream: the
 *   publish acknowledged by the stream's replicas): only then may the request be answered.
 * - `claimDue` hands entries to a sender of this process; until they are settled nobody else
 *   sends them, and if this process dies they are due again (at least once, never lost).
 * - `settle` acks (gone), retries (due again at `at`) or kills (kept as dead: listable and
 *   replayable) what was claimed.
 * - The privacy operations remove a user's or an app's triggers, pending and dead.
 */
import type { Trigger } from '../schemas/visit.js';

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

/** Results of sends, written together: many sends' outcomes cost about one commit. */
export interface Results {
  acks?: EntryKey[];
  retries?: Array<EntryKey & { at: number; error: string }>;
  kills?: Array<EntryKey & { error: string }>;
}

export interface Removed { pending: number; dead: number }

export interface TriggerQueue {
  enqueue(appKey: string, triggers: Trigger[], now?: number): Promise<void>;
  /** Apps with entries this process could claim now or later. */
  pendingApps(): string[];
  /** For each [app, limit] of `want`, up to `limit` due entries of that app, `total` in all. */
  claimDue(want: Iterable<readonly [string, number]>, now: number, total?: number): OutboxEntry[];
  settle(r: Results): Promise<void>;
  ack(list: EntryKey[]): Promise<void>;
  retry(list: EntryKey[], nextAt: number, error: string): Promise<void>;
  /** For people (the admin listing): states with their trigger JSON as text. */
  list(appKey: string, status: TriggerStatus, limit?: number): ListedEntry[] | Promise<ListedEntry[]>;
  /** Requeues an app's dead triggers for immediate delivery; answers how many. */
  replayDead(appKey: string, now?: number): Promise<number>;
  /** Gauges: entries held (pending and dead), pending, and the age of the oldest pending (ms). */
  depth(): number;
  pendingCount(): number;
  oldestPendingAge(now?: number): number;
  /** Entries claimed by this process and not yet settled. */
  leased(): number;
  /** Something may be claimable: senders look now rather than at their next poll. */
  onEnqueue(wake: () => void): () => void;
  /** Removes one user's triggers (the identity key of users/identity.ts), pending and dead. */
  eraseUser(app: string, user: string): Promise<Removed>;
  /** Removes up to `max` of an app's triggers; answers how many (call again until 0). */
  deleteApp(app: string, max?: number): Promise<number>;
  /** Removes up to `max` dead triggers that died at or before `cutoff` (ms); answers how many. */
  purgeDead(cutoff: number, max: number): Promise<number>;
  /** One user's triggers, pending and dead, for their data export. */
  userTriggers(app: string, user: string): Promise<Array<{ state: EntryState; trigger: unknown }>>;
  close(): Promise<void>;
}
