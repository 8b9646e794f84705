/**
 * A worker's batch (pipeline/batch.ts, issue 44) in this thread, as the pool runs it: the
 * requests of one batch are answered each on its own (a bad body answers its own 400 and the
 * others their visits), every record of the batch is stored by its one write, two requests of
 * one user in one batch both land in that user's history, and a batch that names a context the
 * worker does not hold gives its bodies back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { valueSymbol } from 'piscina';
import { loadStore } from '../src/venues/store.js';
import { openUserStore } from '../src/users/store.js';
import type { BatchAnswer, BatchItem, DetectBatch } from '../src/pipeline/task.js';
import type { DetectResult } from '../src/schemas/detect-outcome.js';
import { freePort, ROOT, tempDir } from './helpers/server.js';
import { visitRequest } from './helpers/requests.js';

const worker = await import('../workers/detect.js');
/** As Piscina hands the answer over: a moved value (its bytes transferred) unwrapped. */
const unwrap = (a: unknown) => (a !== null && typeof a === 'object' && valueSymbol in a ? (a as Record<symbol, unknown>)[valueSymbol] : a) as BatchAnswer<DetectResult>;
const run = (b: DetectBatch) => Promise.resolve(worker.batch(b)).then(unwrap);
const app = { app_key: 'ak_batch', confirm_dwell_s: 300, integrity: 'flag' as const, region_events: false };
// After the fixtures' signals (2024-05-06): they are in the past for validation.
const now = Date.parse('2024-05-07T12:00:00Z');
const utf8 = new TextEncoder();
const item = (body: unknown, raw?: Uint8Array): BatchItem => ({ body: raw ?? utf8.encode(JSON.stringify(body)), gzip: false, sync: true, app: 0, now });
const visit = (id: string) => ({ ...visitRequest(), request_id: `r-${id}`, advertising_id: `ad-${id}` });
const decoded = (r: DetectResult) => ('response' in r ? JSON.parse(Buffer.from(r.response).toString('utf8')) : r);

test('one bad body in a batch of good ones answers alone; every good record is stored', async () => {
  const dataDir = tempDir('dwell-batch-');
  try {
    const store = await loadStore(path.join(ROOT, 'data', 'monaco'));
    const missingField = visit('c');
    delete (missingField as Record<string, unknown>).events;
    const items = [item(visit('a')), item(null, utf8.encode('{"not json')), item(visit('b')), item(missingField), item(null, gzipSync('{}')), item(visit('d'))];
    const answer = await run({ v: 1, ctx: { store, dataDir }, apps: [app], items });
    assert.ok(!answer.missing);
    const results = answer.results.map(decoded);
    assert.equal(results.length, items.length);
    for (const i of [0, 2, 5]) {
      assert.equal(results[i].result, 'SUCCESS', `request ${i}: ${JSON.stringify(results[i])}`);
      assert.ok(results[i].data.length > 0, `request ${i} has its visits`);
    }
    for (const i of [1, 3, 4]) {
      assert.equal(results[i].ok, false, `request ${i} failed alone`);
      assert.match(results[i].error.code, /^invalid_(request|json)$/, `request ${i}: ${JSON.stringify(results[i].error)}`);
    }
    const users = openUserStore(dataDir);
    for (const id of ['a', 'b', 'd']) assert.ok(users.read(app.app_key, `ad-${id}`), `ad-${id}'s record was committed with the batch`);
    assert.equal(users.read(app.app_key, 'ad-c'), undefined);
    users.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('two requests of one user in one batch: the second runs on the first one\'s record', async () => {
  const dataDir = tempDir('dwell-batch-');
  try {
    const store = await loadStore(path.join(ROOT, 'data', 'monaco'));
    const first = visit('u');
    const second = { ...visit('u'), request_id: 'r-u2', events: first.events.map((e: { event_id: string; start_time: string; end_time: string; data: Array<{ timestamp: string }> }) => ({
      ...e,
      event_id: `${e.event_id}-next`,
      start_time: e.start_time.replace('2024-05-06', '2024-05-07').replace('T07', 'T08'),
      end_time: e.end_time.replace('2024-05-06', '2024-05-07').replace('T07', 'T08'),
      data: e.data.map((f) => ({ ...f, timestamp: f.timestamp.replace('2024-05-06', '2024-05-07').replace('T07', 'T08') })),
    })) };
    const later = now + 86_400_000;
    const answer = await run({ v: 2, ctx: { store, dataDir }, apps: [app], items: [item(first), { ...item(second), now: later }] });
    assert.ok(!answer.missing);
    const [a, b] = answer.results.map(decoded);
    assert.equal(a.result, 'SUCCESS');
    assert.equal(b.result, 'SUCCESS');
    // The alone run of the same second request, on a store where the first was committed on its own.
    const dir2 = tempDir('dwell-batch-');
    try {
      await run({ v: 3, ctx: { store, dataDir: dir2 }, apps: [app], items: [item(first)] });
      const alone = decoded((await run({ v: 3, apps: [app], items: [{ ...item(second), now: later }] }) as { results: DetectResult[] }).results[0]);
      // History, not learned values: the first request's lessons are in the same write, so the second's learned reads may differ.
      const history = (r: { data: Array<{ visit: { place_id: string | null; place?: { first_visit_time?: string; last_visit_time?: string } } }> }) => r.data.map(({ visit: v }) => [v.place_id, v.place?.first_visit_time, v.place?.last_visit_time]);
      // Without the first's record the second's place would first have been visited on its own day.
      assert.equal(history(b)[0][1], '2024-05-06T05:25:00Z', 'its first visit time is the first request\'s');
      assert.deepEqual(history(b), history(alone), 'in a batch, the second request saw the first one\'s record as if they had come one after the other');
    } finally {
      rmSync(dir2, { recursive: true, force: true });
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a batch naming a context this worker does not hold gives its bodies back', async () => {
  const body = utf8.encode(JSON.stringify(visit('x')));
  const answer = await run({ v: 999, apps: [app], items: [{ body, gzip: false, sync: true, app: 0, now }] });
  assert.equal(answer.missing, true);
  assert.ok(answer.missing && Buffer.from(answer.bodies[0]).equals(Buffer.from(utf8.encode(JSON.stringify(visit('x'))))));
});

test('a batch whose cluster cannot be reached answers each request 503 unavailable, and leaves no rejection unhandled', async () => {
  // An unhandled rejection in a worker kills it, and every request it held became a 500 (CI, cluster-state-outage).
  const unhandled: unknown[] = [];
  const seen = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', seen);
  try {
    const store = await loadStore(path.join(ROOT, 'data', 'monaco'));
    const dead = `nats://127.0.0.1:${await freePort()}`;
    const answer = await run({ v: 4, ctx: { store, dataDir: tempDir('dwell-batch-'), state: { kind: 'nats', servers: [dead] } }, apps: [app], items: [item(visit('n1')), item(visit('n2'))] });
    assert.ok(!answer.missing);
    for (const r of answer.results.map(decoded)) assert.equal(r.error?.code, 'unavailable', JSON.stringify(r));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(unhandled.map(String), []);
  } finally {
    process.off('unhandledRejection', seen);
  }
});
