/**
 * Read-your-writes for a thread's copy of a bucket (contract §8: any node answers as one would).
 * A copy fed by a watch lags the cluster by the watch's delay, milliseconds when idle, seconds on
 * a loaded machine, so a beacon or fence created through node A and a detection through node B
 * right after could miss it. Before such a read, `caughtUp` asks the stream for its last sequence
 * and waits until the watch has delivered it: every write acknowledged before the call is then in
 * the copy. The watch delivers the stream's last message whatever it is (a value or a delete
 * marker), so the wait ends.
 *
 * Readers that arrive while a query is out share the next one, never the one in flight (it may have
 * been answered before their writes): at most two queries a bucket in flight whatever the load.
 */
/** Calls `fire` after `ms` unless cancelled first (setTimeout; a test passes one it fires by hand). */
export type GiveUpTimer = (ms: number, fire: () => void) => () => void;
const realTimer: GiveUpTimer = (ms, fire) => {
  const t = setTimeout(fire, ms);
  return () => clearTimeout(t);
};

export class CatchUp {
  private seen = 0;
  private waiters: Array<{ revision: number; wake: () => void }> = [];
  private inFlight: Promise<number> | null = null;
  private next: Promise<number> | null = null;

  constructor(private readonly lastRevision: () => Promise<number>, private readonly giveUp: GiveUpTimer = realTimer) {}

  /** Readers waiting for the watch to deliver what they asked for. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** The watch delivered `revision`. */
  saw(revision: number): void {
    if (revision > this.seen) this.seen = revision;
    if (!this.waiters.length) return;
    const due = this.waiters.filter((w) => w.revision <= this.seen);
    this.waiters = this.waiters.filter((w) => w.revision > this.seen);
    for (const w of due) w.wake();
  }

  /** True once the copy holds every write acknowledged before the call; false if still behind after `maxMs`. */
  async caughtUp(maxMs: number): Promise<boolean> {
    const last = await this.query();
    if (this.seen >= last) return true;
    let cancel = () => {};
    const ok = await new Promise<boolean>((wake) => {
      const waiter = { revision: last, wake: () => wake(true) };
      this.waiters.push(waiter);
      // A reader that gave up leaves the list now, not when the watch gets this far.
      cancel = this.giveUp(maxMs, () => { this.waiters = this.waiters.filter((w) => w !== waiter); wake(false); });
    });
    cancel();
    return ok;
  }

  /** A last-sequence query sent after this call. */
  private query(): Promise<number> {
    if (!this.inFlight) return this.start();
    this.next ??= this.inFlight.then(() => this.start(), () => this.start());
    return this.next;
  }

  private start(): Promise<number> {
    this.next = null;
    const p = this.lastRevision();
    this.inFlight = p;
    const clear = () => { if (this.inFlight === p) this.inFlight = null; };
    p.then(clear, clear);
    return p;
  }
}
