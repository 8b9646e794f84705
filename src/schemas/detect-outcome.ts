/**
 * What a detection request produces, as it comes back from a worker (pipeline/task.ts carries
 * the request there): the visits and geofence events in full, which postback and bucket apps'
 * triggers are made of, or a synchronous app's answer already serialised.
 */
import type { ErrorBody } from '../errors.js';
import type { GeofenceEvent, IntegrityFlag, PlaceEvent, RegionEvent, SyncItem } from './visit.js';

/** Visits answered, by outcome: what the detections metric counts. */
export interface Tally {
  venue: number; transit: number; no_venue: number;
  /** Contract §12: flags of the visits and events answered, by flag (integrity/stamp.ts); absent when none. */
  flags?: Partial<Record<IntegrityFlag, number>>;
}

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
    /** Contract §11: events of the app's place triggers. */
    place_events: PlaceEvent[];
    /** Contract §11: country entries and exits (apps with region_events). */
    region_events: RegionEvent[];
  }
  | { ok: false; error: ErrorBody['error'] };

/** A synchronous app's answer: the SyncResponse already serialised as UTF-8 JSON. */
export interface SyncOutcome {
  ok: true; kind: 'structured' | 'unstructured'; tally: Tally; response: Uint8Array;
  /** Who the request was about (users/identity.ts), for the recent detections kept with it. */
  user: string | null;
}

export type DetectResult = DetectOutcome | SyncOutcome;
