/**
 * Results of sends, written to the outbox in batches: at thousands of deliveries a second one
 * LMDB transaction per result would cost more than the sends. Everything recorded within `delayMs`
 * (or until `max` results) goes in one `settle` transaction; until then the entries stay leased,
 * so a crash in between only means they are sent again. 20 ms rather than 5: a quarter of the
 * commits (each one work for LMDB's write thread), about 6% less CPU a delivery at 8,000/s, and
 * nothing waits on it but a retry's schedule (its backoff is 100 ms at least).
 */
import type { Outbox, OutboxEntry, Results } from '../outbox.js';

type Key = Pick<OutboxEntry, 'app_key' | 'id'>;

export class Completions {
  private results: Required<Results> = { acks: [], retries: [], kills: [] };
  private count = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly outbox: Pick<Outbox, 'settle'>, private readonly onError: (err: unknown) => void, private readonly max = 1024, private readonly delayMs = 20) {}

  ack(e: Key): void {
    this.results.acks.push({ app_key: e.app_key, id: e.id });
    this.schedule();
  }

  kill(e: Key, error: string): void {
    this.results.kills.push({ app_key: e.app_key, id: e.id, error });
    this.schedule();
  }

  retry(e: Key, at: number, error: string): void {
    this.results.retries.push({ app_key: e.app_key, id: e.id, at, error });
    this.schedule();
  }

  /** Writes everything recorded so far; resolves when it is committed. */
  flush(): Promise<void> {
    const results = this.results;
    const n = this.count;
    this.results = { acks: [], retries: [], kills: [] };
    this.count = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const write = n ? this.outbox.settle(results) : undefined;
    this.writing = Promise.all([this.writing, write]).then(() => {}, (err) => this.onError(err));
    return this.writing;
  }

  private schedule(): void {
    if (++this.count >= this.max) {
      void this.flush();
      return;
    }
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
  }
}
