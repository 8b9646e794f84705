/**
 * Run when a dispatcher starts, when no send of its own is in flight: a lease still running was
 * taken by a process that died, so its entries are made due now rather than when the lease runs
 * out (up to `leaseMs` after a crash). Leases cannot be told from retries scheduled as soon, so
 * those may go a little early; a second server on the same data dir would at worst send some
 * twice. Both are within at-least-once. Bucket apps' entries are left to the bucket exporter.
 */
import type { Outbox, OutboxEntry } from '../outbox.js';
import type { AppLookup } from '../app-settings.js';

export async function releaseLeases(outbox: Pick<Outbox, 'scheduled' | 'retry'>, apps: AppLookup, now: number, leaseMs: number): Promise<number> {
  let released = 0;
  // Paged by schedule; the boundary millisecond is read again (a claim gives a whole batch the
  // same next_at), and the cursor always moves, so the loop ends.
  for (let after = now; after < now + leaseMs;) {
    const page = outbox.scheduled(after, now + leaseMs, 1000);
    const byError = new Map<string, OutboxEntry[]>();
    for (const e of page) {
      if (apps(e.app_key, now)?.delivery.method === 'bucket') continue;
      const error = e.last_error ?? 'released at start: the previous process stopped mid-send';
      byError.set(error, [...(byError.get(error) ?? []), e]);
    }
    for (const [error, list] of byError) {
      await outbox.retry(list, now, error);
      released += list.length;
    }
    if (page.length < 1000) break;
    after = Math.max(after + 1, page[page.length - 1].next_at - 1);
  }
  return released;
}
