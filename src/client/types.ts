/**
 * What the client sends and receives, named as the contract names them. The detection and
 * geofence shapes are the server's own schemas' types, so client and server cannot drift apart.
 */
import type { StructuredRequest, UnstructuredRequest } from '../schemas/detect-request.js';
import type { GeofenceImportResult, GeofenceList, GeofenceRecord, Location, NearGeofenceList } from '../schemas/geofence.js';
import type { SyncResponse } from '../schemas/visit.js';
import type { DetectAccepted } from '../schemas/detect-accepted.js';
import type { EraseAnswer, ExportAnswer, UserExport } from '../schemas/privacy.js';
import type { BeaconList, BeaconLocation, BeaconRecord, ImportResult } from '../schemas/beacon.js';
import type { FeedbackAnswer, VisitFeedback } from '../schemas/feedback.js';

export type { StructuredRequest, UnstructuredRequest, GeofenceList, GeofenceRecord, SyncResponse, DetectAccepted, EraseAnswer, ExportAnswer, UserExport };
export type GeofenceLocation = Location;
export type { GeofenceImportResult, NearGeofenceList };

/** `GET …/geofences?near=` (contract §4): the live geofences within `radius` of a point, nearest first. */
export interface GeofenceNearQuery {
  lat: number;
  long: number;
  /** Metres, 1 to 100,000 (default 1,000). */
  radius?: number;
  tag?: string;
  limit?: number;
  cursor?: string;
}
export type { BeaconList, BeaconLocation, BeaconRecord };
export type BeaconImportResult = ImportResult;
export type { FeedbackAnswer, VisitFeedback };
export type { GeofenceEvent, Visit, Trigger } from '../schemas/visit.js';

export type DetectRequest = StructuredRequest | UnstructuredRequest;

/** A sync app gets its visits back; postback and bucket apps get an acknowledgement. */
export type DetectAnswer = SyncResponse | DetectAccepted;

/** `POST …/geofences/create` (contract §4). */
export interface GeofenceCreate {
  tag?: string | null;
  location: GeofenceLocation;
  /** Seconds, 0 to 315,360,000; 0 never expires. */
  ttl: number;
  push_text?: string | null;
  /** Seconds inside before a `dwell` event, 0 to 86,400 (default 0: none). */
  dwell?: number;
  /** At most 16 keys; strings (≤ 256 characters), finite numbers or booleans; echoed in every event. */
  metadata?: Record<string, string | number | boolean> | null;
  /** Your id for it, 1 to 256 characters, unique within the app (409 when taken); the import's key. */
  external_id?: string | null;
}

/** An absent field keeps its value; `null` or `""` deletes `tag` or `push_text`, `null` deletes `metadata` or `external_id`; `ttl` restarts the clock. */
export interface GeofenceUpdate {
  tag?: string | null;
  location?: GeofenceLocation;
  ttl?: number;
  push_text?: string | null;
  dwell?: number;
  metadata?: Record<string, string | number | boolean> | null;
  external_id?: string | null;
}

export interface GeofenceQuery {
  tag?: string;
  /** The geofence with this external_id (an empty list when none has it). */
  external_id?: string;
  /** 1 to 1,000 (default 100). */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

/** `POST …/beacons/create` (contract §9): a `venue_id` of the served store, a `location`, or both. */
export interface BeaconCreate {
  /** 8-4-4-4-12 hex, either case. */
  uuid: string;
  /** 0 to 65,535. */
  major: number;
  minor: number;
  venue_id?: string | null;
  location?: BeaconLocation | null;
  tag?: string | null;
}

/** An absent field keeps its value; `null` or `""` deletes `venue_id`, `location` or `tag`. */
export type BeaconUpdate = Partial<BeaconCreate>;

export type BeaconQuery = GeofenceQuery;

/** Who: the advertising id, the user id, or both (contract §7). */
export type UserRef = { advertising_id: string; user_id?: string } | { advertising_id?: string; user_id: string };
