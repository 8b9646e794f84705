/** What crosses the thread boundary between the HTTP shell and a detection worker. */
import type { ErrorBody } from '../errors.js';
import type { GeofenceEvent, SyncItem } from '../schemas/visit.js';
import type { StoreHandle } from '../venues/store.js';

export interface DetectTask {
  /** The inflated JSON bytes; moved, not copied. */
  body: Uint8Array;
  app: { app_key: string; confirm_dwell_s: number };
  store: StoreHandle;
  dataDir: string;
  /** Server time of receipt, ms. */
  now: number;
}

export type DetectOutcome =
  | {
    ok: true;
    kind: 'structured' | 'unstructured';
    request_id: string | null;
    user_info: { user_id: string | null; device_id: string | null; custom_data: Record<string, unknown> | null };
    items: SyncItem[];
    geofence_events: GeofenceEvent[];
  }
  | { ok: false; error: ErrorBody['error'] };
