/**
 * Apps and their delivery settings (contract §6). The stored record holds secrets and bucket
 * credentials; `publicApp` is the only shape that leaves the process.
 */
import { Type, type Static } from '@sinclair/typebox';

export const S3Credentials = Type.Object({
  accessKeyId: Type.String({ minLength: 1 }),
  secretAccessKey: Type.String({ minLength: 1 }),
  sessionToken: Type.Optional(Type.String()),
});

/** The kinds of trigger an app can receive (contract §3 "Which events"); `geofence` covers entry, exit and dwell. */
export const EVENT_KINDS = ['visit', 'transit', 'geofence', 'place', 'region'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
/** `delivery.events`: which kinds go out by postback or bucket (absent: all of them). */
export const DeliveryEvents = Type.Array(Type.Union(EVENT_KINDS.map((k) => Type.Literal(k))), {
  minItems: 1, uniqueItems: true, description: 'the kinds of trigger delivered by postback or bucket (default: all five); the synchronous answer lists everything',
});

export const Delivery = Type.Union([
  Type.Object({ method: Type.Literal('sync'), events: Type.Optional(DeliveryEvents) }),
  Type.Object({ method: Type.Literal('postback'), url: Type.String({ minLength: 1, maxLength: 2048 }), events: Type.Optional(DeliveryEvents) }),
  Type.Object({
    method: Type.Literal('bucket'),
    events: Type.Optional(DeliveryEvents),
    provider: Type.Union([Type.Literal('s3'), Type.Literal('gcs')]),
    bucket: Type.String({ minLength: 1, maxLength: 255 }),
    prefix: Type.Optional(Type.String({ maxLength: 512 })),
    region: Type.Optional(Type.String()),
    endpoint: Type.Optional(Type.String()),
    // S3: S3Credentials; GCS: a service-account key object. Checked per provider in the registry.
    credentials: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'S3: {accessKeyId, secretAccessKey, sessionToken?}; GCS: a service-account key object' })),
  }),
]);

/** Seconds a stay must last to be confirmed (contract §2: default 5 minutes, per app). */
export const ConfirmDwell = Type.Integer({ minimum: 0, maximum: 86_400 });
/** Contract §12: what becomes of visits and events that did not pass the integrity checks. */
export const IntegrityMode = Type.Union([Type.Literal('flag'), Type.Literal('drop')], {
  description: '`flag` (default): delivered with their flags; `drop`: not delivered by postback or bucket (counted; the synchronous answer still shows them)',
});
export type IntegrityMode = Static<typeof IntegrityMode>;
/** Contract §11: country entry and exit events. */
export const RegionEvents = Type.Boolean({ description: 'country entry and exit events (contract §11; default false)' });

export const CreateApp = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  delivery: Delivery,
  confirm_dwell_s: Type.Optional(ConfirmDwell),
  integrity: Type.Optional(IntegrityMode),
  region_events: Type.Optional(RegionEvents),
});

export const UpdateApp = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  delivery: Type.Optional(Delivery),
  confirm_dwell_s: Type.Optional(ConfirmDwell),
  integrity: Type.Optional(IntegrityMode),
  region_events: Type.Optional(RegionEvents),
});

export type Delivery = Static<typeof Delivery>;
export type CreateApp = Static<typeof CreateApp>;
export type UpdateApp = Static<typeof UpdateApp>;

export interface Secret { value: string; expires_at: number | null }

export interface AppRecord {
  app_key: string;
  name: string;
  delivery: Delivery;
  confirm_dwell_s: number;
  /** Absent in records written before contract §12: 'flag'. */
  integrity?: IntegrityMode;
  /** Absent in records written before contract §11: false. */
  region_events?: boolean;
  secrets: Secret[];
  created_at: string;
  updated_at: string;
}

/** The app as the admin API shows it: no secret, no credentials. */
export function publicApp(app: AppRecord) {
  const { credentials: _hidden, ...delivery } = app.delivery as Delivery & { credentials?: unknown };
  return {
    app_key: app.app_key,
    name: app.name,
    delivery: 'credentials' in app.delivery ? { ...delivery, credentials: '(set)' } : delivery,
    confirm_dwell_s: app.confirm_dwell_s,
    integrity: app.integrity ?? 'flag',
    region_events: app.region_events ?? false,
    created_at: app.created_at,
    updated_at: app.updated_at,
  };
}

/** What a detection worker needs of an app's settings (pipeline/task.ts), with the defaults of older records filled in. */
export interface TaskApp {
  app_key: string;
  confirm_dwell_s: number;
  integrity: IntegrityMode;
  region_events: boolean;
}

export function taskApp(app: AppRecord): TaskApp {
  return { app_key: app.app_key, confirm_dwell_s: app.confirm_dwell_s, integrity: app.integrity ?? 'flag', region_events: app.region_events ?? false };
}

/** Whether an app receives triggers of `kind` by postback or bucket (contract §3: absent `events`, all). */
export function receives(delivery: Delivery, kind: EventKind): boolean {
  return delivery.events === undefined || delivery.events.includes(kind);
}
