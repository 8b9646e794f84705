/**
 * Shared by the bucket export tests and bench/export.ts: a real S3-protocol server (s3rver) on a
 * loopback port, realistic trigger responses, and reading exported objects back (list, get,
 * gunzip, one JSON trigger a line).
 */
import { gunzipSync } from 'node:zlib';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { AppRecord, Delivery } from '../schemas/app.js';
import { tempDir } from './temp-dir.js';
import type { Trigger } from '../schemas/visit.js';
import { wallNow } from '../time/wall.js';
export { until } from './until.js';

/** The one key pair s3rver accepts: apps in the tests carry it as their own credentials. */
export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LocalS3 { endpoint: string; port: number; dir: string; client: S3Client; close(): Promise<void> }

export async function startS3(opts: { port?: number; dir?: string; buckets?: string[] } = {}): Promise<LocalS3> {
  const dir = opts.dir ?? tempDir('dwell-s3rver-');
  const server = new S3rver({ port: opts.port ?? 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: S3RVER_KEYS });
  for (const b of opts.buckets ?? []) await client.send(new CreateBucketCommand({ Bucket: b }));
  return {
    endpoint, port, dir, client,
    async close() {
      client.destroy();
      await server.close();
    },
  };
}

export async function listKeys(s3: LocalS3, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const o of page.Contents ?? []) keys.push(o.Key!);
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/** One object's lines, each parsed; also checks that the object is gzip. */
export async function readObject(s3: LocalS3, bucket: string, key: string): Promise<{ lines: Trigger[]; raw: Buffer; contentType?: string }> {
  const got = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const raw = Buffer.from(await got.Body!.transformToByteArray());
  return { lines: jsonLines(gunzipSync(raw)), raw, contentType: got.ContentType };
}

export function jsonLines(buf: Buffer): Trigger[] {
  const text = buf.toString();
  if (!text.endsWith('\n')) throw new Error('JSON lines must end with a newline');
  return text.slice(0, -1).split('\n').map((l) => JSON.parse(l) as Trigger);
}

export const OBJECT_NAME = /^(?:(.+)\/)?dt=(\d{4}-\d{2}-\d{2})\/hour=(\d{2})\/(ak_[0-9a-z_]+)-(\d{8}T\d{6})-([0-9a-f]+)\.jsonl\.gz$/;

export function bucketApp(appKey: string, delivery: Omit<Extract<Delivery, { method: 'bucket' }>, 'method'>): AppRecord {
  const now = new Date(wallNow()).toISOString();
  return {
    app_key: appKey, name: 'bucket test', delivery: { method: 'bucket', ...delivery }, confirm_dwell_s: 300,
    secrets: [{ value: 'secret', expires_at: null }], created_at: now, updated_at: now,
  };
}

/** A trigger response shaped like the ones detection makes (about 1 KB of JSON). */
export function sampleTrigger(appKey: string, n: number): Trigger {
  const venue = (i: number) => ({ id: `osm:n${1000 + i}`, name: `Café du Port ${i}`, category: 'Food', sub_category: 'Café', probability: 0.5 / (i + 1) });
  return {
    data: {
      id: `tr_${String(n).padStart(10, '0')}`,
      request_id: `req-${n}`,
      event_id: `ev-${n}`,
      user_info: { user_id: `user-${n % 977}`, device_id: `ad-${n % 977}`, app_key: appKey, custom_data: { plan: 'gold', n } },
      visit: {
        id: `vi_${n.toString(16).padStart(12, '0')}`, event_type: 'visit', is_confirmed: true,
        start_time: '2024-05-06T07:25:00+02:00', end_time: '2024-05-06T07:50:00+02:00', place_id: 'osm:n1000',
        place: {
          id: 'osm:n1000', type: 'Café', type_id: 13035,
          estimated_address: { city: 'Monaco', country: 'Monaco', state: '', formatted_city: 'Monaco', postal_code: '98000', formatted_address: '2 Quai Antoine 1er, 98000 Monaco', street_address: '2 Quai Antoine 1er' },
          estimated_geolocation: { lat: 43.7347, long: 7.4206, accuracy: 18 },
          venue_info: venue(0), venues: [venue(0), venue(1), venue(2)],
          first_visit_time: '2024-04-01T08:00:00+02:00', last_visit_time: '2024-05-06T07:25:00+02:00',
        },
      },
    },
    result: 'SUCCESS',
  };
}

