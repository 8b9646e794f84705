/**
 * What the exporter needs of a bucket: put one object, within a time limit. One implementation
 * per provider (s3.ts, gcs.ts); clients are cached per app and settings so that a changed
 * setting (a rotated key, a new endpoint) takes effect on the next batch.
 */
import { createHash } from 'node:crypto';
import type { Delivery } from '../../schemas/app.js';

export type BucketSettings = Extract<Delivery, { method: 'bucket' }>;

export interface Uploader {
  put(key: string, body: Buffer, timeoutMs: number): Promise<void>;
  close(): void;
}

export type UploaderFactory = (s: BucketSettings) => Uploader;

/** Object metadata of every export: a gzip file, not gzip-encoded JSON, so downloads stay .gz. */
export const CONTENT_TYPE = 'application/gzip';

/**
 * An uploader whose real one is made on its first put (exporter.ts: the SDK is imported then).
 * A failed making is tried again on the next put, as a factory that throws is asked again.
 */
export function madeOnFirstPut(make: () => Promise<Uploader>): Uploader {
  let made: Promise<Uploader> | null = null;
  return {
    async put(key, body, timeoutMs) {
      made ??= make().catch((err) => {
        made = null;
        throw err;
      });
      await (await made).put(key, body, timeoutMs);
    },
    close() {
      void made?.then((u) => u.close(), () => {});
    },
  };
}

export class UploaderCache {
  private readonly clients = new Map<string, Uploader>();

  constructor(private readonly factory: UploaderFactory, private readonly max = 256, private readonly graceMs = 300_000) {}

  get(appKey: string, s: BucketSettings): Uploader {
    const key = appKey + ':' + settingsHash(s);
    let u = this.clients.get(key);
    if (u) {
      this.clients.delete(key); // re-inserted below: the Map's order is the LRU order
    } else {
      // an app's older settings are dead once it has new ones; beyond `max`, the least used go
      for (const k of this.clients.keys()) if (k.startsWith(appKey + ':')) this.retire(k);
      while (this.clients.size >= this.max) this.retire(this.clients.keys().next().value!);
      u = this.factory(s);
    }
    this.clients.set(key, u);
    return u;
  }

  close(): void {
    for (const u of this.clients.values()) u.close();
    this.clients.clear();
  }

  /** Closed later, not now: an upload may still be running on it. */
  private retire(key: string): void {
    const u = this.clients.get(key)!;
    this.clients.delete(key);
    setTimeout(() => u.close(), this.graceMs).unref();
  }
}

/** A hash, not the settings, keys the cache: credentials stay out of anything printable. */
function settingsHash(s: BucketSettings): string {
  const { provider, bucket, region, endpoint, credentials } = s;
  return createHash('sha256').update(JSON.stringify([provider, bucket, region ?? null, endpoint ?? null, credentials ?? null])).digest('hex').slice(0, 32);
}

/** Rejects after `ms`, and calls `abort` so the SDK drops the request instead of finishing late. */
export async function withTimeout<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(new Error(`upload timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([run(ac.signal), limit]);
  } finally {
    clearTimeout(timer);
  }
}
