/**
 * The server's clock: what every time-dependent decision (geofence TTL and expiry, retention,
 * postback backoff and leases, dead-trigger age) reads instead of Date.now().
 *
 * Time is handed down from the server's start: `startServer` picks the clock once and each
 * thread it starts (detection pool, delivery, retention sweep) installs the same one from its
 * workerData with `useClock`. In production it is Date.now(). With DWELL_TEST_CLOCK=1 it is a
 * movable clock: Date.now() plus an offset kept in a SharedArrayBuffer, so the HTTP thread and
 * every worker read the same time without a message and at the cost of one memory read, and a
 * test moves time (POST /admin/clock) instead of sleeping.
 *
 * Moving time also wakes what waits on timers: a generation counter in the same buffer is
 * notified, and every thread's `onAdvance` listeners (the sweeps, the dispatcher) run at once
 * through Atomics.waitAsync. Polling still guarantees progress; the wake-up only cuts latency.
 *
 * Modules that already take a clock (`now` options, used by in-process tests) keep it: this is
 * their default.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Bytes of a movable clock's buffer: the offset (Float64, ms) at 0, the advance generation (Int32) at 8. */
const BYTES = 16;

/**
 * Date.now() plus a shared offset. One writer (the HTTP thread's admin route) and time only moves
 * forward; an aligned 8-byte store is not torn on the 64-bit platforms Node runs on.
 */
export class MovableClock implements Clock {
  private readonly offset: Float64Array;
  private readonly generation: Int32Array;
  private readonly listeners = new Set<() => void>();
  private waiting = false;

  /** `startMs`: where the new clock's time starts (the past included); only the buffer's creator sets it. */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(BYTES), startMs?: number) {
    if (buffer.byteLength < BYTES) throw new Error(`a movable clock needs a ${BYTES}-byte SharedArrayBuffer, got ${buffer.byteLength} bytes`);
    this.offset = new Float64Array(buffer, 0, 1);
    this.generation = new Int32Array(buffer, 8, 1);
    if (startMs !== undefined) this.offset[0] = startMs - Date.now();
  }

  now(): number {
    return Date.now() + this.offset[0];
  }

  /** How far this clock is ahead of the real one, ms. */
  get offsetMs(): number {
    return this.offset[0];
  }

  /** Moves time forward by `ms` for every thread sharing the buffer, wakes their listeners, and answers the new time. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`time moves forward only: expected a finite number of ms ≥ 0, got ${ms}`);
    this.offset[0] += ms;
    Atomics.add(this.generation, 0, 1);
    Atomics.notify(this.generation, 0);
    return this.now();
  }

  /** Runs `fn` (in this thread) after every advance, from any thread; answers the unsubscribe. */
  onAdvance(fn: () => void): () => void {
    this.listeners.add(fn);
    this.watch();
    return () => void this.listeners.delete(fn);
  }

  /** One pending waitAsync per thread while anyone listens; it does not keep the thread alive. */
  private watch(): void {
    if (this.waiting || this.listeners.size === 0) return;
    const seen = Atomics.load(this.generation, 0);
    const w = waitAsync(this.generation, 0, seen);
    if (!w.async) return void queueMicrotask(() => this.fire()); // advanced between the load and the wait
    this.waiting = true;
    void w.value.then(() => {
      this.waiting = false;
      this.fire();
    });
  }

  private fire(): void {
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch { /* a listener's failure is its own; the others still run */ }
    }
    this.watch();
  }
}

/** Atomics.waitAsync (Node 16+; not in this TypeScript lib). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

let current: Clock = systemClock;

/** This thread's server clock. Its `now` is safe to pass around unbound. */
export const clock: Clock = { now: () => current.now() };

/** Installs the clock handed down from the server's start (a worker: the buffer in its workerData). */
export function useClock(c: Clock | SharedArrayBuffer | undefined): Clock {
  current = c === undefined ? systemClock : c instanceof SharedArrayBuffer ? new MovableClock(c) : c;
  return current;
}

/** What a thread hands its workers so they read the same time: the buffer, or nothing for the real clock. */
export function clockBuffer(): SharedArrayBuffer | undefined {
  return current instanceof MovableClock ? current.buffer : undefined;
}

/** Runs `fn` after every advance of this thread's clock (nothing happens with the real clock); answers the unsubscribe. */
export function onAdvance(fn: () => void): () => void {
  return current instanceof MovableClock ? current.onAdvance(fn) : () => {};
}
