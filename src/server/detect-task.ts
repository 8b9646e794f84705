/**
 * What crosses the thread boundary between the HTTP shell and a detection worker. Both ways the
 * bulky part is bytes that are moved, not copied: the body as sent goes in (the worker inflates
 * it), and a synchronous app's whole answer comes back as JSON bytes, so the HTTP thread neither
 * inflates, clones an object graph nor serialises it (issue #2).
 */
import type { ErrorBody } from '../errors.js';
import type { GeofenceEvent, SyncItem } from '../schemas/visit.js';
import type { StoreHandle } from '../venues/store.js';

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
  /** Server time of receipt, ms. */
  now: number;
}

/** Visits answered, by outcome: what the detections metric counts. */
export interface Tally { venue: number; transit: number; no_venue: number }

/** A request's detections in full: what postback and bucket apps' triggers are made of. */
export type DetectOutcome =
  | {
    ok: true;
    kind: 'structured' | 'unstructured';
    tally: Tally;
    request_id: string | null;
    user_info: { user_id: string | null; device_id: string | null; custom_data: Record<string, unknown> | null };
    items: SyncItem[];
    geofence_events: GeofenceEvent[];
  }
  | { ok: false; error: ErrorBody['error'] };

/** A synchronous app's answer: the SyncResponse already serialised as UTF-8 JSON. */
export interface SyncOutcome { ok: true; kind: 'structured' | 'unstructured'; tally: Tally; response: Uint8Array }

export type DetectResult = DetectOutcome | SyncOutcome;
