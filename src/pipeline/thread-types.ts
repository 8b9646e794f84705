/** What a detection thread's state offers (thread-state.ts), apart from how each engine opens it. */
import type { UserStore } from '../users/store.js';
import type { UserRecord } from '../users/records.js';
import type { Evaluation, FenceView, Presence } from '../geofences/events.js';
import type { BeaconView } from '../schemas/beacon.js';
import type { GeofenceEvent } from '../schemas/visit.js';
import type { StructuredRequest, UnstructuredRequest } from '../schemas/detect-request.js';

export type Maybe<T> = T | Promise<T>;

/** A user's presence evaluated (geofences/events.ts evaluate), wherever the engine keeps it. */
export type PresenceRun = (before: Presence) => Evaluation;

export interface ThreadState {
  /** What detection reads and writes during a run: the record being run on, learned values. */
  users: UserStore;
  /**
   * Runs `detect` on the user's stored record and commits what it changed and taught, with the
   * user's presence evaluated by `presence` where the engine keeps it: again on
   * a newer record when another writer got there first. Without a user (`who` null) only what it
   * taught is kept. `heard`: the request carries beacon scans, so the run reads the app's beacons
   * (hearsBeacons; the cluster then brings its copy of the registry up to date first).
   */
  commit<T>(app: string, who: string | null, detect: () => T, presence: PresenceRun, heard: boolean): Maybe<{ result: T; events: GeofenceEvent[] }>;
  /** Runs `detect` on the user's stored record, committing nothing (explain). */
  peek<T>(app: string, who: string | null, detect: () => T, heard: boolean): Maybe<T>;
  fences(app: string): FenceView | undefined;
  beacons(app: string): BeaconView | undefined;
}

/** A record with nothing in it: detection runs as for a user never seen. */
export const isNew = (r: UserRecord) => Object.keys(r.h).length === 0 && r.r.length === 0 && !r.s && !r.v && !r.g;

/** Whether a request heard any beacon: only then does detection read the app's registered beacons. */
export function hearsBeacons(body: StructuredRequest | UnstructuredRequest): boolean {
  const heard = (data: UnstructuredRequest['data']) => data.some((s) => (s.beacon_scan?.length ?? 0) > 0);
  return 'events' in body ? body.events.some((e) => heard(e.data)) : heard(body.data);
}
