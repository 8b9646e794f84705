/**
 * Retention as any state kit can run it (privacy's default, engine.ts): users by the node that
 * holds the 'user-retention' lease, every quarter of the retention and at most once a minute,
 * through the kit's `users.sweep`; dead triggers on this thread through the queue's purge
 * (RetentionSweeper with no users to sweep). The cluster runs it: it has no time index, so a pass
 * reads every user's record and its cost grows with the number of users, not with those due. A
 * kit with a cheaper way brings its own (StateKit.retention: the embedded kit's thread).
 */
import { log } from '../log.js';
import type { RetentionContext, RetentionRun, StateKit } from '../state/types.js';
import { clock, onAdvance } from '../time/clock.js';
import { RetentionSweeper } from './retention.js';

export type LeaseKinds = Pick<StateKit, 'users' | 'lease'>;

/** One pass if this node holds the lease; answers the users removed. */
export async function sweepLeasedUsers(s: LeaseKinds, retentionMs: number, now = clock.now()): Promise<number> {
  if (retentionMs <= 0 || !(await s.lease.hold('user-retention'))) return 0;
  return s.users.sweep(now - retentionMs);
}

/** The interval between passes over the users for a retention of `retentionMs`. */
export const leasePassMs = (retentionMs: number): number => Math.max(1000, Math.min(60_000, retentionMs / 4));

export function leaseRetention(s: LeaseKinds, ctx: RetentionContext): RetentionRun {
  const r = ctx.retention;
  const counter = ctx.metrics.counter('dwell_retention_removed_total', 'records deleted by the retention sweeps, by kind');
  let users = 0;
  // A pass reads every user one at a time and may outlast the interval: the next starts only
  // after it ends, and close waits for it (its reads use the connection that closes next).
  // A move of the clock meanwhile asks for one more, run once this one ends.
  let pass: Promise<void> | null = null;
  let again = false, closed = false;
  const run = (moved = false): void => {
    if (closed) return;
    if (pass) { again ||= moved; return; }
    pass = (async () => {
      log.debug('retention: a pass over the users starts');
      try {
        const n = await sweepLeasedUsers(s, r.userRetentionMs);
        if (!n) return;
        users += n;
        counter.inc({ kind: 'users' }, n);
        log.info('retention: users removed', { users: n });
      } catch (err) {
        log.warn('cluster retention sweep skipped', { error: String((err as Error)?.message ?? err) });
      } finally {
        log.debug('retention: the pass over the users ended');
      }
    })().finally(() => {
      pass = null;
      if (again) { again = false; run(); }
    });
  };
  const timer = r.userRetentionMs > 0 ? setInterval(() => run(), leasePassMs(r.userRetentionMs)) : null;
  timer?.unref();
  // A test moved the server's clock: what fell due is swept now, not a pass interval later.
  const unwatch = timer ? onAdvance(() => run(true)) : () => {};
  const sweeper = new RetentionSweeper({ outbox: ctx.outbox }, { ...r, userRetentionMs: 0, metrics: ctx.metrics, busy: ctx.busy }).start();
  return {
    removed: () => ({ ...sweeper.removed, users }),
    enter: () => {},
    leave: () => {},
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      unwatch();
      await pass;
      await sweeper.stop();
    },
  };
}
