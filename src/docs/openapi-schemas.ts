/**
 * The named schemas of the API document: the service's own TypeBox schemas (src/schemas/), so
 * the document says what the server validates and answers. Where a request schema leaves a field
 * open for a validator that names the field in its error (a geofence's `location`, `ttl` on
 * update), the document states the shape that validator accepts.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { CreateApp, Delivery, IntegrityMode, UpdateApp } from '../schemas/app.js';
import { DetectAccepted } from '../schemas/detect-accepted.js';
import { Event, Signal, StructuredRequest, UnstructuredRequest } from '../schemas/detect-request.js';
import { ErrorAnswer } from '../schemas/error-answer.js';
import { AdvanceClock, ClockTime } from '../schemas/clock.js';
import { BeaconList, BeaconLocation, BeaconPart, BeaconRecord, BeaconUuid, CreateBeacon, ImportResult, UpdateBeacon } from '../schemas/beacon.js';
import { Explanation, RecentDetail, RecentList, VenueSearch } from '../schemas/explorer.js';
import { Circle, CreateGeofence, GeofenceImportResult, GeofenceList, GeofenceRecord, Location, NearGeofenceList, Polygon, Ttl, UpdateGeofence, Vertex } from '../schemas/geofence.js';
import { FeedbackAnswer, VisitFeedback } from '../schemas/feedback.js';
import { EraseAnswer, ExportAnswer, UserExport, UserRef } from '../schemas/privacy.js';
import { CreatePlaceTrigger, PlaceTriggerList, PlaceTriggerRecord, UpdatePlaceTrigger } from '../schemas/place-trigger.js';
import { Address, GeofenceEvent, Integrity, Place, PlaceEvent, RegionEvent, SyncItem, SyncResponse, Trigger, VenueInfo, Visit } from '../schemas/visit.js';

const geofenceCreate = Type.Object({ ...CreateGeofence.properties, location: Location });
const geofenceUpdate = Type.Object({ ...UpdateGeofence.properties, location: Type.Optional(Location), ttl: Type.Optional(Ttl) });
/** A beacon's `location`, `""` or null meaning none (deleted, on update). */
const beaconLocation = Type.Optional(Type.Union([BeaconLocation, Type.Null(), Type.Literal('')]));
const beaconCreate = Type.Object({ ...CreateBeacon.properties, location: beaconLocation });
const beaconUpdate = Type.Object({
  ...UpdateBeacon.properties, uuid: Type.Optional(BeaconUuid), major: Type.Optional(BeaconPart), minor: Type.Optional(BeaconPart), location: beaconLocation,
});

/** The app as the admin API shows it: never the secret, bucket credentials as "(set)". */
const App = Type.Object({
  app_key: Type.String(),
  name: Type.String(),
  delivery: Type.Object({ method: Type.Union([Type.Literal('sync'), Type.Literal('postback'), Type.Literal('bucket')]) }, { additionalProperties: true }),
  confirm_dwell_s: Type.Integer(),
  integrity: IntegrityMode,
  region_events: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const SCHEMAS: Record<string, TSchema> = {
  StructuredRequest,
  UnstructuredRequest,
  // oneOf, not TypeBox's anyOf: a body with both `events` and `data` matches both and so is refused, as the server does.
  DetectRequest: Type.Unsafe({ oneOf: [StructuredRequest, UnstructuredRequest], description: 'exactly one of `events` (structured) and `data` (unstructured); both or neither: 400' }),
  Event,
  Signal,
  SyncResponse,
  SyncItem,
  DetectAccepted,
  Visit,
  Place,
  VenueInfo,
  Address,
  GeofenceEvent,
  PlaceEvent,
  RegionEvent,
  Integrity,
  Trigger,
  GeofenceCreate: geofenceCreate,
  GeofenceUpdate: geofenceUpdate,
  GeofenceRecord,
  GeofenceList,
  GeofenceNearList: NearGeofenceList,
  // A list, by tag or external_id, or with `near` a list whose items also carry `distance`.
  GeofencePage: Type.Unsafe({ anyOf: [GeofenceList, NearGeofenceList], description: 'a page of geofences; with `near`, each item also has `distance` in metres' }),
  GeofenceImportResult,
  GeofenceLocation: Location,
  Circle,
  Polygon,
  GeofenceVertex: Vertex,
  GeofenceId: Type.String({ description: 'the geofence id, as a JSON string' }),
  PlaceTriggerCreate: CreatePlaceTrigger,
  PlaceTriggerUpdate: UpdatePlaceTrigger,
  PlaceTriggerRecord,
  PlaceTriggerList,
  PlaceTriggerId: Type.String({ description: 'the place trigger id, as a JSON string' }),
  BeaconCreate: beaconCreate,
  BeaconUpdate: beaconUpdate,
  BeaconRecord,
  BeaconList,
  BeaconLocation,
  BeaconImportResult: ImportResult,
  BeaconId: Type.String({ description: 'the beacon id, as a JSON string' }),
  VisitFeedback,
  FeedbackAnswer,
  UserRef,
  EraseAnswer,
  ExportAnswer,
  UserExport,
  CreateApp,
  UpdateApp,
  Delivery,
  App,
  AppList: Type.Object({ apps: Type.Array(App) }),
  AppCreated: Type.Intersect([App, Type.Object({ app_secret: Type.String({ description: 'shown once' }) })]),
  RotatedSecret: Type.Object({ app_secret: Type.String() }),
  Deliveries: Type.Object({
    status: Type.Union([Type.Literal('pending'), Type.Literal('dead')]),
    count: Type.Integer({ minimum: 0 }),
    deliveries: Type.Array(Type.Object({ trigger: Trigger }, { additionalProperties: true })),
  }),
  Replayed: Type.Object({ replayed: Type.Integer({ minimum: 0 }) }),
  AdvanceClock,
  ClockTime,
  AppDeleted: Type.Object({ deleted: Type.String(), removed: Type.Object({}, { additionalProperties: true }) }),
  Health: Type.Object({ status: Type.Literal('ok') }),
  Readiness: Type.Object({}, { additionalProperties: true, description: 'what is ready and what is not (the venue store, the queues)' }),
  RecentList,
  RecentDetail,
  Explanation,
  VenueSearch,
  Error: ErrorAnswer(),
};
