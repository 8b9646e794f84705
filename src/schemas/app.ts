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

export const Delivery = Type.Union([
  Type.Object({ method: Type.Literal('sync') }),
  Type.Object({ method: Type.Literal('postback'), url: Type.String({ minLength: 1, maxLength: 2048 }) }),
  Type.Object({
    method: Type.Literal('bucket'),
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

export const CreateApp = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  delivery: Delivery,
  confirm_dwell_s: Type.Optional(ConfirmDwell),
});

export const UpdateApp = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  delivery: Type.Optional(Delivery),
  confirm_dwell_s: Type.Optional(ConfirmDwell),
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
    created_at: app.created_at,
    updated_at: app.updated_at,
  };
}
