/**
 * What the client sends and receives, named as the contract names them. The detection and
 * geofence shapes are the server's own schemas' types, so client and server cannot drift apart.
 */
import type { StructuredRequest, UnstructuredRequest } from '../schemas/detect-request.js';
import type { GeofenceList, GeofenceRecord, Location } from '../schemas/geofence.js';
import type { SyncResponse } from '../schemas/visit.js';
import type { DetectAccepted } from '../schemas/detect-accepted.js';
import type { EraseAnswer, ExportAnswer, UserExport } from '../schemas/privacy.js';
import type { BeaconList, BeaconLocation, BeaconRecord, ImportResult } from '../schemas/beacon.js';
import type { FeedbackAnswer, VisitFeedback } from '../schemas/feedback.js';

export type { StructuredRequest, UnstructuredRequest, GeofenceList, GeofenceRecord, SyncResponse, DetectAccepted, EraseAnswer, ExportAnswer, UserExport };
export type GeofenceLocation = Location;
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
}

/** An absent field keeps its value; `null` or `""` deletes `tag` or `push_text`; `ttl` restarts the clock. */
export interface GeofenceUpdate {
  tag?: string | null;
  location?: GeofenceLocation;
  ttl?: number;
  push_text?: string | null;
}

export interface GeofenceQuery {
  tag?: string;
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
