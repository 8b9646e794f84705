/**
 * Bucket export to S3 against a real S3-protocol server (s3rver on a loopback port), through
 * @aws-sdk/client-s3 with the app's endpoint, region and credentials: object names, gzip JSON
 * lines read back and compared with the queued triggers, the window and byte cap, failures
 * followed by success, dead triggers after the max age, and credentials kept out of errors.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { Outbox } from '../src/delivery/outbox.js';
import { BucketExporter, type BucketExporterOptions } from '../src/delivery/bucket/exporter.js';
import type { ExportEvent } from '../src/delivery/bucket/events.js';
import type { AppRecord } from '../src/schemas/app.js';
import { tempDir } from './helpers/server.js';
import { OBJECT_NAME, S3RVER_KEYS, bucketApp, listKeys, readObject, sampleTrigger, startS3, until, type LocalS3 } from './bucket-helpers.js';

let s3: LocalS3;
before(async () => {
  s3 = await startS3({ buckets: ['dwell-export'] });
});
after(() => s3.close());

/** An outbox of its own, one exporter on it, the events it reported; `done` stops both. */
function rig(apps: AppRecord[], opts: Partial<BucketExporterOptions> = {}) {
  const outbox = new Outbox(tempDir('dwell-bucket-'));
  const events: ExportEvent[] = [];
  const byKey = new Map(apps.map((a) => [a.app_key, a]));
  const exporter = new BucketExporter({ outbox, appSettings: (k) => byKey.get(k), windowMs: 300, onEvent: (e) => events.push(e), ...opts });
  exporter.start();
  return {
    outbox, exporter, events, byKey,
    enqueue: (app: string, from: number, n: number) => outbox.enqueue(app, Array.from({ length: n }, (_, i) => sampleTrigger(app, from + i))),
    async done() {
      await exporter.stop();
      await outbox.close();
    },
  };
}

const s3App = (appKey: string, extra: Record<string, unknown> = {}) => bucketApp(appKey, {
  provider: 's3', bucket: 'dwell-export', region: 'us-east-1', endpoint: s3.endpoint, credentials: S3RVER_KEYS, ...extra,
});

async function exported(bucket: string, appKey: string) {
  const keys = (await listKeys(s3, bucket)).filter((k) => k.includes(`${appKey}-`));
  const objects = await Promise.all(keys.map(async (key) => ({ key, ...(await readObject(s3, bucket, key)) })));
  return { keys, objects, ids: objects.flatMap((o) => o.lines.map((l) => l.data.id)) };
}

test('a window closes the batch: one object, named per the contract, holding the queued triggers', async () => {
  const app = 'ak_window';
  const r = rig([s3App(app, { prefix: '/exports/dwell/' })]);
  try {
    const queued = Array.from({ length: 25 }, (_, i) => sampleTrigger(app, i));
    const before = Date.now();
    await r.outbox.enqueue(app, queued.slice(0, 10));
    await r.outbox.enqueue(app, queued.slice(10));
    const got = await until('the object', async () => ((await exported('dwell-export', app)).ids.length === 25 ? exported('dwell-export', app) : undefined));
    assert.equal(got.keys.length, 1, 'one batch inside one window');
    const m = OBJECT_NAME.exec(got.keys[0]);
    assert.ok(m, got.keys[0]);
    const [, prefix, day, hour, appKey, stamp] = m;
    assert.equal(prefix, 'exports/dwell', 'slashes around the prefix are trimmed');
    assert.equal(appKey, app);
    const closed = Date.UTC(+stamp.slice(0, 4), +stamp.slice(4, 6) - 1, +stamp.slice(6, 8), +stamp.slice(9, 11), +stamp.slice(11, 13), +stamp.slice(13, 15));
    assert.equal(day, new Date(closed).toISOString().slice(0, 10), 'dt= is the UTC day of the close time');
    assert.equal(hour, new Date(closed).toISOString().slice(11, 13), 'hour= is the UTC hour of the close time');
    assert.ok(closed >= Math.floor(before / 1000) * 1000 && closed <= Date.now(), 'named after the close time');
    const byId = (a: { data: { id: string } }, b: { data: { id: string } }) => a.data.id.localeCompare(b.data.id);
    assert.deepEqual([...got.objects[0].lines].sort(byId), queued, 'one trigger response a line, the stored body');
    assert.equal(got.objects[0].contentType, 'application/gzip');
    assert.equal(r.outbox.pendingCount(), 0, 'acked once uploaded');
    assert.deepEqual(r.events.map((e) => [e.outcome, e.triggers, e.provider]), [['ok', 25, 's3']]);
  } finally {
    await r.done();
  }
});

test('an empty prefix gives names without a leading slash', async () => {
  const app = 'ak_noprefix';
  const r = rig([s3App(app)]);
  try {
    await r.enqueue(app, 0, 3);
    const { keys } = await until('the object', async () => { const e = await exported('dwell-export', app); return e.ids.length === 3 && e; });
    assert.match(keys[0], /^dt=\d{4}-\d{2}-\d{2}\/hour=\d{2}\/ak_noprefix-\d{8}T\d{6}-[0-9a-f]+\.jsonl\.gz$/);
  } finally {
    await r.done();
  }
});

test('5 MB of JSON lines closes a batch long before the window', async () => {
  const app = 'ak_bytes';
  const r = rig([s3App(app)], { windowMs: 60_000 }); // default 5 MB cap
  try {
    const n = 9_000; // about 10 MB of lines: two full batches, the rest waits for the window
    for (let i = 0; i < n; i += 1_000) await r.enqueue(app, i, 1_000);
    const got = await until('two full objects', async () => { const e = await exported('dwell-export', app); return e.keys.length >= 2 && e; }, 30_000);
    for (const o of got.objects) {
      const bytes = o.lines.reduce((s, l) => s + Buffer.byteLength(JSON.stringify(l)) + 1, 0);
      assert.ok(bytes <= 5_000_000, `at most 5 MB uncompressed, got ${bytes}`);
      assert.ok(bytes > 4_990_000, `closed because full, got ${bytes}`);
    }
    assert.equal(new Set(got.ids).size, got.ids.length, 'no trigger twice');
    assert.equal(r.outbox.pendingCount(), n - got.ids.length, 'the rest is still queued');
  } finally {
    await r.done();
  }
});

test('a missing bucket fails with backoff, visible in the pending list and events, then succeeds once created', async () => {
  const app = 'ak_late';
  const r = rig([s3App(app, { bucket: 'late-bucket' })]);
  try {
    await r.enqueue(app, 0, 5);
    await until('two failures', () => r.events.filter((e) => e.outcome === 'failed').length >= 2, 10_000, 20);
    const pending = r.outbox.list(app, 'pending');
    assert.equal(pending.length, 5, 'nothing leaves the outbox on failure');
    assert.match(pending[0].last_error ?? '', /NoSuchBucket/);
    assert.ok(pending[0].attempts >= 1);
    await s3.client.send(new CreateBucketCommand({ Bucket: 'late-bucket' }));
    const got = await until('the object', async () => { const e = await exported('late-bucket', app); return e.ids.length === 5 && e; }, 15_000);
    assert.deepEqual(got.ids.sort(), Array.from({ length: 5 }, (_, i) => sampleTrigger(app, i).data.id));
    await until('acked', () => r.outbox.pendingCount() === 0);
  } finally {
    await r.done();
  }
});

test('the S3 server down, then back on the same port: everything arrives', async () => {
  const app = 'ak_outage';
  const dir = tempDir('dwell-s3rver-');
  let local = await startS3({ dir, buckets: ['outage'] });
  const r = rig([s3App(app, { bucket: 'outage', endpoint: local.endpoint })]);
  try {
    await local.close();
    await r.enqueue(app, 0, 7);
    await until('a failure', () => r.events.some((e) => e.outcome === 'failed'), 10_000, 20);
    local = await startS3({ dir, port: local.port });
    await until('all 7 listed', async () => {
      const keys = await listKeys(local, 'outage');
      const lines = (await Promise.all(keys.map((k) => readObject(local, 'outage', k)))).flatMap((o) => o.lines);
      return lines.length >= 7;
    }, 20_000);
    await until('acked', () => r.outbox.pendingCount() === 0);
  } finally {
    await r.done();
    await local.close();
  }
});

test('past the max age failing triggers are dead, listed, and replayable', async () => {
  const app = 'ak_dead';
  const r = rig([s3App(app, { bucket: 'dead-bucket' })], { maxAgeMs: 200 });
  try {
    await r.enqueue(app, 0, 4);
    await until('dead', () => r.outbox.list(app, 'dead').length === 4 && r.events.some((e) => e.outcome === 'dead'), 10_000, 20);
    assert.equal(r.events.filter((e) => e.outcome === 'dead').reduce((n, e) => n + e.triggers, 0), 4);
    await s3.client.send(new CreateBucketCommand({ Bucket: 'dead-bucket' }));
    r.byKey.set(app, s3App(app, { bucket: 'dead-bucket' }));
    assert.equal(await r.outbox.replayDead(app), 4);
    r.exporter.wake();
    // replayed entries are fresh to the exporter's failure state only after its backoff ends
    const got = await until('the replayed object', async () => { const e = await exported('dead-bucket', app); return e.ids.length === 4 && e; }, 20_000);
    assert.equal(got.ids.length, 4);
  } finally {
    await r.done();
  }
});

test('credentials never reach the recorded error', async () => {
  // The logs are checked in a real server process by e2e/logs-secrets (bucket credentials
  // included): the logger writes to fd 2 directly, past anything this process could intercept.
  const app = 'ak_badkey';
  const secret = 'wrong-secret-0123456789abcdef';
  // s3rver checks the key id but not V4 signatures: an unknown key id makes the upload fail
  const r = rig([s3App(app, { credentials: { accessKeyId: 'AKIAUNKNOWN0001', secretAccessKey: secret } })]);
  try {
    await r.enqueue(app, 0, 2);
    await until('a failure', () => r.events.some((e) => e.outcome === 'failed'), 10_000, 20);
    const [entry] = r.outbox.list(app, 'pending');
    assert.match(entry.last_error ?? '', /InvalidAccessKeyId \(HTTP 403\)/);
    assert.ok(!entry.last_error!.includes(secret));
  } finally {
    await r.done();
  }
});

test('stop hands unsent batches back: due at once for the next exporter', async () => {
  const app = 'ak_stop';
  const r = rig([s3App(app)], { windowMs: 60_000 });
  await r.enqueue(app, 0, 3);
  await until('held', () => r.exporter.stats().held_triggers === 3, 5_000, 20);
  await r.exporter.stop();
  const pending = r.outbox.list(app, 'pending');
  assert.equal(pending.length, 3);
  assert.ok(pending.every((e) => e.next_at <= Date.now()), 'due now, not after the lease');
  await r.outbox.close();
});
