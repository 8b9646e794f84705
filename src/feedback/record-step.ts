/**
 * Feedback as one read-modify-write of the user's record through the state kit's users, in
 * either engine: the step runs against a view of the record (state/user-view.ts) that collects
 * what it teaches instead of writing it; the record is stored with the kit's `modify` (run again
 * on a newer record when another writer got there first), and what the stored run taught is
 * merged into the kit's learned values after that, so a run thrown away taught nothing. The
 * learned values the step reads (footprints, priors) are the kit's as this node knows them.
 */
import { DwellError } from '../errors.js';
import { log } from '../log.js';
import type { UserRecord } from '../users/records.js';
import type { UserStore } from '../users/store.js';
import { ClusterUserView } from '../state/user-view.js';
import type { StateKit } from '../state/types.js';
import type { ApObservation } from '../learned/tables.js';
import { clock } from '../time/clock.js';

/** What feedback does to one record, against the store the learned tables are taught through. */
export type FeedbackStep = (rec: UserRecord, users: UserStore) => ApObservation[];

export interface RecordStepper {
  run(app: string, user: string, step: FeedbackStep): Promise<void>;
}

export const noVisit = (visitId: string) =>
  new DwellError('not_found', `no visit ${JSON.stringify(visitId)} answered for this user in this app (or no longer in their history)`);

export function kitStepper(kit: Pick<StateKit, 'users' | 'learned'>): RecordStepper {
  return {
    async run(app, user, step) {
      // One view a round: the counts of a round thrown away on a conflict are never sent.
      let view: ClusterUserView | null = null;
      const run = await kit.users.modify(app, user, (rec) => {
        view = new ClusterUserView(kit.learned);
        const r = view.run(app, user, rec, () => view!.update(app, user, (own) => ({ record: own, result: undefined, learn: { app, aps: step(own, view!) } })));
        const record = r.record!;
        // When it was last written, for the retention sweep (the embedded kit keeps its own slot instead).
        record.d = clock.now();
        return { record, result: r };
      });
      const writes = [...run.learned, ...(view as ClusterUserView | null)?.takeMerges() ?? []];
      await Promise.all(writes.map((w) => w().catch((err) => log.warn('learned values not stored', { error: String((err as Error)?.message ?? err) }))));
    },
  };
}
