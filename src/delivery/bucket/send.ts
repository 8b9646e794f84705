/**
 * One closed batch to its bucket, then its fate in the outbox: acked only after the upload
 * succeeded; otherwise retried with the app's backoff, or killed once older than the max age.
 * A crash anywhere in here leaves the entries in the outbox, due: the next process sends them.
 */
import { log } from '../../log.js';
import type { TriggerQueue as Outbox } from '../outbox.js';
import { retryDelayMs } from '../retry-delay.js';
import type { Batch } from './batch.js';
import type { ExportEvent } from './events.js';
import { objectName } from './object-name.js';
import type { BucketSettings, UploaderCache } from './uploader.js';

export interface SendContext {
  outbox: Outbox;
  uploaders: UploaderCache;
  now: () => number;
  uploadTimeoutMs: number;
  maxAgeMs: number;
  /** Per app: consecutive failures, and until when new batches wait (the backoff). */
  failures: Map<string, number>;
  blocked: Map<string, { until: number; error: string }>;
  emit: (e: ExportEvent) => void;
}

export async function sendBatch(ctx: SendContext, b: Batch, s: BucketSettings): Promise<void> {
  const app = b.appKey;
  const started = ctx.now();
  const name = objectName(s.prefix, app, b.closedAt);
  try {
    const body = await b.encode();
    await ctx.uploaders.get(app, s).put(name, body, ctx.uploadTimeoutMs);
    const ms = ctx.now() - started;
    await ctx.outbox.ack(b.keys);
    ctx.failures.delete(app);
    ctx.blocked.delete(app);
    ctx.emit({ app_key: app, provider: s.provider, outcome: 'ok', triggers: b.size, bytes: body.length, ms });
    log.debug('bucket export uploaded', { app_key: app, object: name, triggers: b.size, bytes: body.length, ms });
  } catch (err) {
    const now = ctx.now();
    const n = (ctx.failures.get(app) ?? 0) + 1;
    const until = now + retryDelayMs(n);
    const error = describe(err, s);
    ctx.failures.set(app, n);
    ctx.blocked.set(app, { until, error });
    const [dead, again] = split(b.keys, (k) => now - k.created_at >= ctx.maxAgeMs);
    const kills = dead.map(({ app_key, id }) => ({ app_key, id, error }));
    const retries = again.map(({ app_key, id }) => ({ app_key, id, at: until, error }));
    await settle(() => ctx.outbox.settle({ kills, retries }), b.size);
    ctx.emit({ app_key: app, provider: s.provider, outcome: 'failed', triggers: again.length, bytes: 0, ms: now - started });
    if (dead.length) ctx.emit({ app_key: app, provider: s.provider, outcome: 'dead', triggers: dead.length, bytes: 0, ms: 0 });
    log.warn('bucket export failed', {
      app_key: app, provider: s.provider, bucket: s.bucket, triggers: b.size, failures: n, retry_in_ms: until - now, dead: dead.length, error,
    });
  }
}

/** Hands a batch back unsent (shutdown, changed settings, backoff): due again at `at`. */
export async function release(ctx: Pick<SendContext, 'outbox' | 'emit'>, b: Batch, at: number, why: string, provider = ''): Promise<void> {
  await settle(() => ctx.outbox.retry(b.keys, at, why), b.size);
  ctx.emit({ app_key: b.appKey, provider, outcome: 'released', triggers: b.size, bytes: 0, ms: 0 });
}

/** An outbox write that fails (closing store) must not crash the loop: the entries stay in the outbox, due again. */
async function settle(write: () => Promise<void>, n: number): Promise<void> {
  if (n === 0) return;
  try {
    await write();
  } catch (err) {
    log.error('bucket export could not update the outbox; the triggers stay due and are sent again', { error: String((err as Error)?.message ?? err) });
  }
}

function split<T>(list: T[], test: (t: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const t of list) (test(t) ? yes : no).push(t);
  return [yes, no];
}

/**
 * The error as kept in the outbox and logs: name, HTTP status and message, with every credential
 * string of the app blanked out in case an SDK ever echoes one back.
 */
export function describe(err: unknown, s: BucketSettings): string {
  const e = err as { name?: string; message?: string; code?: unknown; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode ?? (typeof e?.code === 'number' ? e.code : undefined);
  let text = `${e?.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(err)}`;
  for (const v of Object.values((s.credentials ?? {}) as Record<string, unknown>)) {
    if (typeof v === 'string' && v.length >= 8) text = text.split(v).join('[redacted]');
  }
  return text.length > 500 ? text.slice(0, 500) + '…' : text;
}
