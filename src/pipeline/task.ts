/**
 * What crosses the thread boundary between the HTTP shell and a detection worker. Both ways the
 * bulky part is bytes that are moved, not copied: the body as sent goes in (the worker inflates
 * it), and a synchronous app's whole answer comes back as JSON bytes, so the HTTP thread neither
 * inflates, clones an object graph nor serialises it (issue #2). What comes back is in
 * schemas/detect-outcome.ts, since delivery turns it into triggers.
 */
import type { StoreHandle } from '../venues/store.js';
import type { StateTarget } from '../config.js';
import type { TaskApp } from '../schemas/app.js';

export interface DetectTask {
  /** The body exactly as sent (gzip when `gzip`); moved, not copied, when it owns its buffer. */
  body: Uint8Array;
  /** Content-Encoding said gzip: the worker inflates under the decompressed cap. */
  gzip: boolean;
  /** The app answers synchronously: the worker returns the 200 body ready to write. */
  sync: boolean;
  app: TaskApp;
  store: StoreHandle;
  dataDir: string;
  /** Where user state lives (config.state): the worker opens its own per-thread state there; absent: LMDB in `dataDir`. */
  state?: StateTarget;
  /** Server time of receipt, ms. */
  now: number;
  /** The HTTP request's id (X-Request-Id), for the worker's log lines. */
  requestId?: string;
}

/** What every request of a batch shares (the store, where state lives): sent to a worker once per version, not per request. */
export interface TaskContext {
  store: StoreHandle;
  dataDir: string;
  state?: StateTarget;
}

/** One request of a batch: a DetectTask without what the batch shares; `app` indexes the batch's `apps`. */
export interface BatchItem {
  body: Uint8Array;
  gzip: boolean;
  sync: boolean;
  app: number;
  now: number;
  requestId?: string;
}

/**
 * The requests the HTTP thread had ready in one turn of its loop (server/pool.ts), run by one
 * worker as a unit (pipeline/batch.ts). `ctx` travels only until every worker has said it holds
 * version `v`; a worker that does not (one started since) answers `missing` and it is sent again.
 */
export interface DetectBatch {
  v: number;
  ctx?: TaskContext;
  apps: TaskApp[];
  items: BatchItem[];
}

export type BatchAnswer<R> = { thread: number; v: number; missing: true; bodies: Uint8Array[] } | { thread: number; v: number; missing?: undefined; results: R[] };
