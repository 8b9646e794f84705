/**
 * What crosses the thread boundary between the HTTP shell and a detection worker. Both ways the
 * bulky part is bytes that are moved, not copied: the body as sent goes in (the worker inflates
 * it), and a synchronous app's whole answer comes back as JSON bytes, so the HTTP thread neither
 * inflates, clones an object graph nor serialises it (issue #2). What comes back is in
 * schemas/detect-outcome.ts, since delivery turns it into triggers.
 */
import type { StoreHandle } from '../venues/store.js';
import type { StateTarget } from '../config.js';

export interface DetectTask {
  /** The body exactly as sent (gzip when `gzip`); moved, not copied, when it owns its buffer. */
  body: Uint8Array;
  /** Content-Encoding said gzip: the worker inflates under the decompressed cap. */
  gzip: boolean;
  /** The app answers synchronously: the worker returns the 200 body ready to write. */
  sync: boolean;
  app: { app_key: string; confirm_dwell_s: number };
  store: StoreHandle;
  dataDir: string;
  /** Where user state lives (config.state): the worker opens its own per-thread state there; absent: LMDB in `dataDir`. */
  state?: StateTarget;
  /** Server time of receipt, ms. */
  now: number;
  /** The HTTP request's id (X-Request-Id), for the worker's log lines. */
  requestId?: string;
}
