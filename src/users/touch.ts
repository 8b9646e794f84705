/**
 * When each user record was last touched, as a time index in the users environment:
 * ['ut', until, app, user] → 1, where `until` (ms) is the end of the time slot in which the
 * record was last written, also kept in the record (`d`). The retention sweep reads this index
 * from its oldest end and never scans the users themselves.
 *
 * A slot is a day unless retention is shorter (then a sixteenth of it): the hot path writes the
 * index once per user per slot, not on every request. A user is swept between `retention` and
 * `retention + slot` after their last write. The slot width is kept in the environment
 * (['meta', 'touch-slot-ms'], written by the server at start) so detection workers use the
 * server's without being told.
 */
import type { Database } from 'lmdb';
import type { UserRecord } from './records.js';
import { clock } from '../time/clock.js';

export const DAY_MS = 86_400_000;
export const SLOT_KEY = ['meta', 'touch-slot-ms'];
export type TouchKey = ['ut', number, string, string];

export const touchKey = (until: number, app: string, user: string): TouchKey => ['ut', until, app, user];

/** The slot width for a user retention of `retentionMs` (0: kept forever, a day). */
export const slotFor = (retentionMs: number): number => (retentionMs > 0 ? Math.max(1000, Math.min(DAY_MS, Math.floor(retentionMs / 16))) : DAY_MS);

/**
 * Inside the write transaction of a user's update: moves the user's index key when the record is
 * written in a later slot than before. `now` is the server's clock, ms.
 */
export function toucher(db: Database): (app: string, user: string, rec: UserRecord, now?: number) => void {
  let slot: number | undefined;
  return (app, user, rec, now = clock.now()) => {
    if (rec.d !== undefined && now < rec.d) return;
    slot ??= (db.get(SLOT_KEY) as number | undefined) ?? DAY_MS;
    if (rec.d !== undefined) db.removeSync(touchKey(rec.d, app, user));
    rec.d = (Math.floor(now / slot) + 1) * slot;
    db.putSync(touchKey(rec.d, app, user), 1);
  };
}
