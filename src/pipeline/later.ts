/**
 * A value that a batch's one write settles (thread-embedded.ts `together`): a promise's shape,
 * but settled synchronously (and no thenable: `map`, not `then`), its continuations run at once and in order, so a batch in the
 * embedded engine still never waits on a promise or a microtask turn (and bench:http-task and
 * bench:instructions, which time a pass synchronously, count the whole of it).
 */
import { currentRequestId, withRequestId } from '../log.js';

export class Later<T> {
  private done: 0 | 1 | 2 = 0;
  private value: unknown;
  private readonly waiting: Array<() => void> = [];

  static is(x: unknown): x is Later<unknown> {
    return x instanceof Later;
  }

  resolve(v: T): void {
    this.settle(1, v);
  }

  reject(e: unknown): void {
    this.settle(2, e);
  }

  /** The continuation's own Later; `bad` answers a rejection (absent: passed on). */
  map<U>(ok: (v: T) => U, bad?: (e: unknown) => U): Later<U> {
    const out = new Later<U>();
    const run = () => {
      try {
        if (this.done === 1) out.resolve(ok(this.value as T));
        else if (bad) out.resolve(bad(this.value));
        else out.reject(this.value);
      } catch (e) {
        out.reject(e);
      }
    };
    if (this.done) run();
    else {
      // Run later by the batch's write, outside the request's turn: under the request id it was
      // made under, so what it logs carries it (log.ts). Not AsyncResource.bind, which did the
      // same: its resource and bound function kept each request's data alive past the worker's
      // scavenges (promoted 13.7 KB a request against 0.8, old-space collections every few
      // seconds at part load; issue 44's 1 in flight, the GC helpers' instructions above all).
      const id = currentRequestId();
      this.waiting.push(id === undefined ? run : () => withRequestId(id, run));
    }
    return out;
  }

  /** The value once settled; throws the rejection, or if it is not settled yet. */
  get(): T {
    if (this.done === 1) return this.value as T;
    throw this.done === 2 ? this.value : new Error('Later read before it was settled');
  }

  private settle(state: 1 | 2, v: unknown): void {
    if (this.done) return;
    this.done = state;
    this.value = v;
    for (const run of this.waiting.splice(0)) run();
  }
}
