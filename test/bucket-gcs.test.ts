/**
 * Bucket export to GCS through the official @google-cloud/storage v7 client, pointed with the
 * app's `endpoint` at FakeGcs (only the multipart upload the client makes). Without a key the
 * client sends no auth to a custom endpoint, so this runs offline.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { Outbox } from '../src/delivery/outbox.js';
import { BucketExporter } from '../src/delivery/bucket/exporter.js';
import type { ExportEvent } from '../src/delivery/bucket/events.js';
import { tempDir } from './helpers/server.js';
import { FakeGcs } from './helpers/fake-gcs.js';
import { OBJECT_NAME, bucketApp, jsonLines, sampleTrigger, until } from './bucket-helpers.js';

let gcs: FakeGcs;
before(async () => {
  gcs = new FakeGcs();
  gcs.buckets.add('gcs-export');
  await gcs.start();
});
after(() => gcs.stop());

function rig(appKey: string, bucket: string) {
  const outbox = new Outbox(tempDir('dwell-gcs-'));
  const events: ExportEvent[] = [];
  const app = bucketApp(appKey, { provider: 'gcs', bucket, prefix: 'visits', endpoint: gcs.url });
  const exporter = new BucketExporter({ outbox, appSettings: (k) => (k === appKey ? app : undefined), windowMs: 300, onEvent: (e) => events.push(e) });
  exporter.start();
  return {
    outbox, events,
    enqueue: (from: number, n: number) => outbox.enqueue(appKey, Array.from({ length: n }, (_, i) => sampleTrigger(appKey, from + i))),
    lines: () => gcs.list(bucket).filter((o) => o.name.includes(appKey)).flatMap((o) => jsonLines(gunzipSync(o.body))),
    async done() {
      await exporter.stop();
      await outbox.close();
    },
  };
}

test('the official client uploads gzip JSON lines under the contract\'s name', async () => {
  const r = rig('ak_gcs', 'gcs-export');
  try {
    const queued = Array.from({ length: 12 }, (_, i) => sampleTrigger('ak_gcs', i));
    await r.outbox.enqueue('ak_gcs', queued);
    await until('the object', () => r.lines().length === 12);
    const [obj] = gcs.list('gcs-export');
    const m = OBJECT_NAME.exec(obj.name);
    assert.ok(m, obj.name);
    assert.equal(m[1], 'visits');
    assert.equal(m[4], 'ak_gcs');
    assert.equal(obj.contentType, 'application/gzip');
    assert.deepEqual(r.lines(), queued);
    assert.deepEqual(gcs.unexpected, [], 'the client needed only the multipart upload');
    assert.deepEqual(gcs.authHeaders, [], 'no credentials sent to a custom endpoint without a key');
    // The exporter acks, then reports: wait for the report, not just the ack.
    await until('acked and reported', () => r.outbox.pendingCount() === 0 && r.events.length > 0);
    assert.deepEqual(r.events.map((e) => [e.outcome, e.provider, e.triggers]), [['ok', 'gcs', 12]]);
  } finally {
    await r.done();
  }
});

test('a missing bucket, then a 503, then success', async () => {
  const r = rig('ak_gcs_late', 'gcs-late');
  try {
    await r.enqueue(0, 6);
    await until('a 404 failure', () => r.events.some((e) => e.outcome === 'failed'), 10_000, 20);
    assert.match(r.outbox.list('ak_gcs_late', 'pending')[0].last_error ?? '', /404|does not exist/);
    gcs.failNext = 1;
    gcs.buckets.add('gcs-late');
    await until('a second failure', () => r.events.filter((e) => e.outcome === 'failed').length >= 2, 10_000, 20);
    await until('all six', () => r.lines().length === 6, 15_000);
    await until('acked', () => r.outbox.pendingCount() === 0);
  } finally {
    await r.done();
  }
});

test('the GCS endpoint stopped, then started again on the same port', async () => {
  const r = rig('ak_gcs_down', 'gcs-export');
  try {
    await gcs.stop();
    await r.enqueue(0, 5);
    await until('a failure', () => r.events.some((e) => e.outcome === 'failed'), 10_000, 20);
    assert.equal(r.outbox.pendingCount(), 5);
    await gcs.start();
    await until('all five', () => r.lines().length === 5, 15_000);
    await until('acked', () => r.outbox.pendingCount() === 0);
  } finally {
    await r.done();
  }
});
