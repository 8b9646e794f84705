/** What a detection thread's state offers (thread-state.ts), apart from how each engine opens it. */
import type { UserStore } from '../users/store.js';
import type { UserRecord } from '../users/records.js';
import type { FenceView } from '../geofences/events.js';
import type { BeaconView } from '../schemas/beacon.js';
import type { PresenceRun, TriggerEvents } from '../users/presence.js';
import type { StructuredRequest, UnstructuredRequest } from '../schemas/detect-request.js';
import type { Later } from './later.js';

export type Maybe<T> = T | Promise<T>;

export type { PresenceRun, TriggerEvents } from '../users/presence.js';

export interface ThreadState {
  /** What detection reads and writes during a run: the record being run on, learned values. */
  users: UserStore;
  /**
   * Runs `detect` on the user's stored record and `presence` (users/presence.ts) on the user's
   * presence in that record, and commits what both changed
   * and what the run taught in one write: again on a newer record when another writer got there
   * first. Without a user (`who` null) only what it taught is kept and no events come back.
   * `heard`: the request carries beacon scans, so the run reads the app's beacons (hearsBeacons;
   * the cluster then brings its copy of the registry up to date first).
   */
  commit<T>(app: string, who: string | null, detect: () => T, presence: PresenceRun, heard: boolean): Maybe<{ result: T; events: TriggerEvents }> | Later<{ result: T; events: TriggerEvents }>;
  /** Runs `detect` on the user's stored record, committing nothing (explain). */
  peek<T>(app: string, who: string | null, detect: () => T, heard: boolean): Maybe<T>;
  /**
   * Runs a batch's detections (`runs`) so that their commits are ONE write: each `commit` made
   * inside answers a Later (later.ts) settled once that write is done (a run that failed alone, rejected).
   * Absent (the cluster): each commit is its own, as outside a batch.
   */
  together?<R>(runs: () => R): R;
  fences(app: string): FenceView | undefined;
  beacons(app: string): BeaconView | undefined;
}

/** A record with nothing in it: detection runs as for a user never seen. */
export const isNew = (r: UserRecord) => Object.keys(r.h).length === 0 && r.r.length === 0 && !r.s && !r.v && !r.g && !r.p;

/** Whether a request heard any beacon: only then does detection read the app's registered beacons. */
export function hearsBeacons(body: StructuredRequest | UnstructuredRequest): boolean {
  const heard = (data: UnstructuredRequest['data']) => data.some((s) => (s.beacon_scan?.length ?? 0) > 0);
  return 'events' in body ? body.events.some((e) => heard(e.data)) : heard(body.data);
}
