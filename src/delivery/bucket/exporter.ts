/**
 * Bucket export (contract §3): claims the due triggers of bucket apps from the shared outbox,
 * batches them per app, and uploads a batch once its oldest trigger has waited `windowMs` or its
 * JSON lines reach `maxBytes`.
 *
 * Triggers are claimed as they arrive and held in memory until their batch is uploaded and
 * acked; the claim is a lease in memory (../leases.ts) that lasts until then, so a trigger is
 * never in two live batches. A crash loses only the memory: a restart finds the triggers due at
 * once (their old created_at closes the new batch at once). Polling `due` is the guarantee;
 * `wake` only cuts delay.
 *
 * Runs in whichever thread owns delivery; the owner must `await stop()` before closing the outbox.
 */
import type { AppRecord } from '../../schemas/app.js';
import type { OutboxEntry } from '../outbox.js';
import { Batch } from './batch.js';
import { release, sendBatch, type SendContext } from './send.js';
import { withDefaults, type BucketExporterOptions, type ExporterSettings } from './options.js';
import { madeOnFirstPut, UploaderCache, type BucketSettings, type UploaderFactory } from './uploader.js';

export type { BucketExporterOptions } from './options.js';

const PAGE = 2_000;
const WAKE_DELAY_MS = 20;
/**
 * The providers' SDKs are loaded when an app's first batch is sent, not with the delivery worker:
 * together they cost every start ~0.3 s of CPU (node -e "import('@aws-sdk/client-s3')" 0.18 s user+sys,
 * '@google-cloud/storage' 0.25 s, a bare node 0.06 s), and most nodes never export to a bucket.
 */
const byProvider: UploaderFactory = (s) => madeOnFirstPut(() => (s.provider === 'gcs' ? import('./gcs.js').then((m) => m.gcsUploader(s)) : import('./s3.js').then((m) => m.s3Uploader(s))));

export class BucketExporter {
  private readonly o: ExporterSettings;
  private readonly ctx: SendContext;
  private readonly open = new Map<string, Batch>();
  private readonly ready: Batch[] = [];
  private readonly sending = new Set<Promise<void>>();
  private heldBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;
  private running = false;
  private pass: Promise<void> | null = null;
  private again = false;
  private lastApp = '';

  constructor(opts: BucketExporterOptions) {
    this.o = withDefaults(opts);
    this.ctx = {
      outbox: opts.outbox, uploaders: new UploaderCache(opts.uploaders ?? byProvider), now: this.o.now,
      uploadTimeoutMs: this.o.uploadTimeoutMs, maxAgeMs: this.o.maxAgeMs, failures: new Map(), blocked: new Map(), emit: opts.onEvent ?? (() => {}),
    };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** A trigger was enqueued, or an upload finished: run a pass soon (coalesced, at most every 20 ms). */
  wake(): void {
    if (!this.running) return;
    if (this.pass) this.again = true;
    else this.schedule(WAKE_DELAY_MS);
  }

  /** Stops claiming, waits for uploads in flight, and hands every unsent batch back to the outbox. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.pass;
    await Promise.allSettled([...this.sending]);
    const now = this.o.now();
    const unsent = [...this.ready.splice(0), ...this.open.values()];
    this.open.clear();
    for (const b of unsent) await release(this.ctx, b, now, 'exporter stopped before upload');
    this.heldBytes = 0;
    this.ctx.uploaders.close();
  }

  /** Gauges for /metrics: triggers held in batches and uploads in flight. */
  stats(): { held_triggers: number; held_bytes: number; uploading: number; backing_off_apps: number } {
    let held = 0;
    for (const b of [...this.open.values(), ...this.ready]) held += b.size;
    return { held_triggers: held, held_bytes: this.heldBytes, uploading: this.sending.size, backing_off_apps: this.ctx.blocked.size };
  }

  private schedule(ms: number): void {
    const at = performance.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => void this.run(), ms);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.again = false;
    this.pass = (async () => {
      const now = this.o.now();
      await this.pull(now);
      this.closeDue(now);
      this.pump();
    })();
    try {
      await this.pass;
    } finally {
      this.pass = null;
      if (this.running) this.schedule(this.again ? WAKE_DELAY_MS : this.o.pollMs);
    }
  }

  /**
   * Claims what is due of the bucket apps, app by app from the per-app schedule, starting after
   * the app served last so that one app's backlog cannot starve the others. An app backing off
   * is not read: its triggers wait out the backoff in the outbox.
   */
  private async pull(now: number): Promise<void> {
    const apps = this.o.outbox.pendingApps().filter((app) => {
      const blocked = this.ctx.blocked.get(app);
      return bucketOf(this.o.appSettings(app)) !== null && !(blocked && blocked.until > now);
    });
    while (this.running && this.heldBytes < this.o.maxHeldBytes && apps.length) {
      const start = Math.max(0, apps.findIndex((a) => a > this.lastApp));
      const want = apps.map((_, i) => [apps[(start + i) % apps.length], PAGE] as const);
      const claimed = this.o.outbox.claimDue(want, now, PAGE);
      for (const e of claimed) this.add(e, now);
      if (claimed.length < PAGE) return;
      this.lastApp = claimed[claimed.length - 1].app_key;
    }
  }

  private add(e: OutboxEntry, now: number): void {
    let b = this.open.get(e.app_key) ?? new Batch(e.app_key);
    const before = b.bytes;
    if (!b.add(e, this.o.maxBytes)) {
      this.close(b, now);
      b = new Batch(e.app_key);
      b.add(e, this.o.maxBytes);
      this.heldBytes += b.bytes;
    } else {
      this.heldBytes += b.bytes - before;
    }
    this.open.set(e.app_key, b);
    if (b.bytes >= this.o.maxBytes) this.close(b, now);
  }

  private close(b: Batch, now: number): void {
    this.open.delete(b.appKey);
    b.closedAt = now;
    this.ready.push(b);
  }

  private closeDue(now: number): void {
    for (const b of this.open.values()) if (now >= b.dueAt(this.o.windowMs)) this.close(b, now);
  }

  private pump(): void {
    while (this.running && this.sending.size < this.o.concurrency && this.ready.length > 0) {
      const b = this.ready.shift()!;
      const p = this.send(b).finally(() => {
        this.sending.delete(p);
        this.heldBytes -= b.bytes;
        this.wake();
      });
      this.sending.add(p);
    }
  }

  private async send(b: Batch): Promise<void> {
    const now = this.o.now();
    const s = bucketOf(this.o.appSettings(b.appKey));
    const blocked = this.ctx.blocked.get(b.appKey);
    if (!s) return release(this.ctx, b, now, 'app no longer has bucket delivery');
    if (blocked && blocked.until > now) return release(this.ctx, b, blocked.until, blocked.error, s.provider);
    await sendBatch(this.ctx, b, s);
  }
}

function bucketOf(app: AppRecord | undefined): BucketSettings | null {
  return app?.delivery.method === 'bucket' ? app.delivery : null;
}
