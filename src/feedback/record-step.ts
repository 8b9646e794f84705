/**
 * Feedback as one read-modify-write of the user's record, in either state engine: the embedded
 * LMDB user store (one write transaction holding the record and what it teaches), or the cluster's
 * user state (a conditional write, run again on a newer record; what it taught is sent after the
 * record was stored, so a run thrown away on a conflict taught nothing), as detection does
 * (pipeline/thread-embedded.ts, pipeline/thread-cluster.ts).
 */
import { DwellError } from '../errors.js';
import { log } from '../log.js';
import type { UserRecord } from '../users/records.js';
import type { UserStore } from '../users/store.js';
import type { Versions } from '../learned/cache.js';
import { openUserStore } from '../users/store.js';
import { ClusterUserView } from '../state/user-view.js';
import type { LearnedState, UsersState } from '../state/types.js';
import type { ApObservation } from '../learned/tables.js';
import { clock } from '../time/clock.js';

/** What feedback does to one record, against the store the learned tables are taught through. */
export type FeedbackStep = (rec: UserRecord, users: UserStore) => ApObservation[];

export interface RecordStepper {
  run(app: string, user: string, step: FeedbackStep): Promise<void>;
  close(): void;
}

export const noVisit = (visitId: string) =>
  new DwellError('not_found', `no visit ${JSON.stringify(visitId)} answered for this user in this app (or no longer in their history)`);

export function embeddedStepper(dataDir: string, versions: Versions): RecordStepper {
  // The workers' versions table, so that their caches of learned values see what feedback teaches (learned/cache.ts).
  const users = openUserStore(dataDir, { noSync: true, versions });
  return {
    async run(app, user, step) {
      users.fresh();
      users.update(app, user, (rec) => ({ record: rec, result: undefined, learn: { app, aps: step(rec, users) } }));
    },
    close: () => users.close(),
  };
}

/**
 * The cluster's learned values as this thread teaches them: merges only. A read (peek) would make
 * this thread follow the whole learned bucket (state/nats/learned.ts), which only detection needs.
 */
const mergesOnly = (learned: LearnedState): LearnedState => ({
  peek: () => undefined,
  merge: (key, fn) => learned.merge(key, fn),
  dropApp: (app) => learned.dropApp(app),
});

export function clusterStepper(state: { users: UsersState; learned: LearnedState }): RecordStepper {
  const learned = mergesOnly(state.learned);
  return {
    async run(app, user, step) {
      // One view a round: the counts of a round thrown away on a conflict are never sent.
      let view: ClusterUserView | null = null;
      const run = await state.users.modify(app, user, (rec) => {
        view = new ClusterUserView(learned);
        const r = view.run(app, user, rec, () => view!.update(app, user, (own) => ({ record: own, result: undefined, learn: { app, aps: step(own, view!) } })));
        const record = r.record!;
        record.d = clock.now();
        return { record, result: r };
      });
      const writes = [...run.learned, ...(view as ClusterUserView | null)?.takeMerges() ?? []];
      await Promise.all(writes.map((w) => w().catch((err) => log.warn('learned values not stored', { error: String((err as Error)?.message ?? err) }))));
    },
    close: () => {},
  };
}
