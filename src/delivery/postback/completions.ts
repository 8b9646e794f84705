/**
 * Results of sends, written to the outbox in batches: at thousands of deliveries a second one
 * LMDB transaction per result would cost more than the sends. A batch is written on the next
 * turn of the event loop (or at once when large); until then the entries stay leased, so a crash
 * in between only means they are sent again.
 */
import type { Outbox, OutboxEntry } from '../outbox.js';

type Key = Pick<OutboxEntry, 'app_key' | 'id'>;

export class Completions {
  private acks: Key[] = [];
  private kills = new Map<string, Key[]>();
  private retries: Array<{ key: Key; at: number; error: string }> = [];
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly outbox: Pick<Outbox, 'ack' | 'retry' | 'kill'>, private readonly onError: (err: unknown) => void, private readonly max = 512) {}

  ack(e: Key): void {
    this.acks.push({ app_key: e.app_key, id: e.id });
    this.schedule();
  }

  kill(e: Key, error: string): void {
    const list = this.kills.get(error) ?? [];
    list.push({ app_key: e.app_key, id: e.id });
    this.kills.set(error, list);
    this.schedule();
  }

  retry(e: Key, at: number, error: string): void {
    this.retries.push({ key: { app_key: e.app_key, id: e.id }, at, error });
    this.schedule();
  }

  /** Writes everything recorded so far; resolves when it is committed. */
  flush(): Promise<void> {
    const acks = this.acks;
    const kills = this.kills;
    const retries = this.retries;
    this.acks = [];
    this.kills = new Map();
    this.retries = [];
    this.scheduled = false;
    const writes: Promise<void>[] = [];
    if (acks.length) writes.push(this.outbox.ack(acks));
    for (const [error, list] of kills) writes.push(this.outbox.kill(list, error));
    for (const r of retries) writes.push(this.outbox.retry([r.key], r.at, r.error));
    // lmdb-js commits concurrent async transactions together, so these cost about one commit.
    this.writing = Promise.all([this.writing, ...writes]).then(() => {}, (err) => this.onError(err));
    return this.writing;
  }

  private schedule(): void {
    if (this.acks.length + this.retries.length >= this.max) {
      void this.flush();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      if (this.scheduled) void this.flush();
    });
  }
}
