/**
 * The HTTP thread's side of batches (issue 44, pipeline/batch.ts the worker's): the detections
 * asked for while its loop turns are gathered and handed to the pool after the loop's poll phase
 * (setImmediate: the check phase that follows it), so the requests that became ready in the same
 * turn (their bodies read, their replay claims committed together by lmdb-js) travel as a few
 * batches instead of one task each. Nothing waits on a timer: a request alone is a batch of one,
 * sent in the turn it came. At most `slots` batches are with the workers (server/pool.ts: two a
 * worker, the one it runs and the next); what arrives while all are taken waits here and leaves,
 * in batches of what has gathered, as they come back: under load batches fill from the work
 * that is waiting.
 *
 * What every request shares (venue store, data directory, state target) is a context with a
 * version; a batch carries it only until each worker has answered one batch of that version
 * (they keep it: batch.ts), and again for a worker that answers it does not hold it (started since).
 */
import type { TaskApp } from '../schemas/app.js';
import type { DetectResult } from '../schemas/detect-outcome.js';
import type { BatchAnswer, BatchItem, DetectBatch, DetectTask, TaskContext } from './task.js';

interface Waiting { task: DetectTask; resolve: (r: DetectResult) => void; reject: (e: unknown) => void }
interface Context { v: number; ctx: TaskContext; held: Set<number> }

/** Sends a batch to the pool with the bodies to move; the worker's answer back. */
export type SendBatch = (batch: DetectBatch, transfer: ArrayBuffer[]) => Promise<BatchAnswer<DetectResult>>;

export class Gatherer {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private out = 0;
  private last: Context | null = null;
  private version = 0;
  /** Requests answered by each worker thread (by thread id). */
  readonly answered = new Map<number, number>();
  /** Batches sent and the requests in them, so far (bench:pool-batches shows their mean size). */
  readonly sent = { batches: 0, requests: 0 };

  constructor(private readonly send: SendBatch, private readonly threads: number, private readonly slots: number, private readonly maxBatch: number) {}

  /** Requests not yet with a worker. */
  get queued(): number {
    return this.waiting.length;
  }

  add(task: DetectTask): Promise<DetectResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ task, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => { this.scheduled = false; this.flush(); });
  }

  private flush(): void {
    while (this.waiting.length && this.out < this.slots) {
      // Spread what is ready over the workers, a batch at most maxBatch; the batch shares one context.
      const size = Math.min(this.maxBatch, Math.max(1, Math.ceil(this.waiting.length / this.threads)));
      const ctx = this.contextOf(this.waiting[0].task);
      let n = 1;
      while (n < size && n < this.waiting.length && this.contextOf(this.waiting[n].task) === ctx) n++;
      this.dispatch(ctx, this.waiting.splice(0, n), false);
    }
  }

  private dispatch(c: Context, chunk: Waiting[], withCtx: boolean, bodies?: Uint8Array[]): void {
    const apps: TaskApp[] = [], index = new Map<string, number>(), transfer: ArrayBuffer[] = [];
    const items = chunk.map(({ task }, i): BatchItem => {
      const a = task.app, key = `${a.app_key}\u0000${a.confirm_dwell_s}\u0000${a.integrity}\u0000${a.region_events}`;
      let k = index.get(key);
      if (k === undefined) index.set(key, (k = apps.push(a) - 1));
      const body = bodies?.[i] ?? task.body;
      // Moved when it owns its buffer outright (readBody makes sure it does); cloning copies it.
      if (body.byteOffset === 0 && body.byteLength === body.buffer.byteLength) transfer.push(body.buffer as ArrayBuffer);
      return { body, gzip: task.gzip, sync: task.sync, app: k, now: task.now, requestId: task.requestId };
    });
    const batch: DetectBatch = { v: c.v, apps, items, ...(withCtx || c.held.size < this.threads ? { ctx: c.ctx } : {}) };
    this.out++;
    this.sent.batches++;
    this.sent.requests += chunk.length;
    this.send(batch, transfer).then((answer) => {
      if (answer.missing) {
        // A worker started since the others took this context: again, with it (the bodies came back).
        c.held.clear();
        this.out--;
        return this.dispatch(c, chunk, true, answer.bodies);
      }
      this.out--;
      c.held.add(answer.thread);
      this.answered.set(answer.thread, (this.answered.get(answer.thread) ?? 0) + chunk.length);
      for (let i = 0; i < chunk.length; i++) chunk[i].resolve(answer.results[i]);
      if (this.waiting.length) this.schedule();
    }, (err) => {
      this.out--;
      for (const w of chunk) w.reject(err);
      if (this.waiting.length) this.schedule();
    });
  }

  /** The context of a task: the current one while its store, data directory and state are the same objects. */
  private contextOf(task: DetectTask): Context {
    const l = this.last;
    if (l && l.ctx.store === task.store && l.ctx.dataDir === task.dataDir && l.ctx.state === task.state) return l;
    return (this.last = { v: ++this.version, ctx: { store: task.store, dataDir: task.dataDir, state: task.state }, held: new Set() });
  }
}
