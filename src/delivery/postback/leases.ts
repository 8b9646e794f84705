/**
 * Run when a dispatcher starts, when no send of its own is in flight: a lease still running was
 * taken by a process that died, so its entries are made due now rather than when the lease runs
 * out (up to `leaseMs` after a crash). Leases cannot be told from retries scheduled as soon, so
 * those may go a little early; a second server on the same data dir would at worst send some
 * twice. Both are within at-least-once. Bucket apps' entries are left to the bucket exporter.
 */
import type { Outbox, Results } from '../outbox.js';
import type { AppLookup } from '../app-settings.js';

const PAGE = 1000;

export async function releaseLeases(outbox: Pick<Outbox, 'pendingApps' | 'scheduledForApp' | 'settle'>, apps: AppLookup, now: number, leaseMs: number): Promise<number> {
  let released = 0;
  for (const app of outbox.pendingApps()) {
    if (apps(app, now)?.delivery.method === 'bucket') continue;
    // Paged by schedule; the boundary millisecond is read again (a claim gives a whole batch the
    // same next_at), and the cursor always moves, so the loop ends.
    for (let after = now; after < now + leaseMs;) {
      const page = outbox.scheduledForApp(app, after, now + leaseMs, PAGE);
      const retries: NonNullable<Results['retries']> = page.map((e) => ({
        app_key: e.app_key, id: e.id, at: now, error: e.last_error ?? 'released at start: the previous process stopped mid-send',
      }));
      if (retries.length) await outbox.settle({ retries });
      released += retries.length;
      if (page.length < PAGE) break;
      after = Math.max(after + 1, page[page.length - 1].next_at - 1);
    }
  }
  return released;
}
