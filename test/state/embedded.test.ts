/**
 * The state contract's promises (contract.ts, which lmdb.test.ts runs on the embedded kit itself)
 * across threads, as the embedded engine's threads meet them, on the production classes
 * (embedded-ops.ts): node a is this thread, node b a worker thread opening the same data directory
 * on its own, as the detection and delivery workers do in production. One process owns an
 * embedded data directory (data-dir-lock.ts), so its writers are the threads of one process:
 * lmdb-js then shares one LMDB environment per path between them (LMDB allows one per process),
 * each thread with its own read snapshots, write queue and caches. Where the embedded engine
 * promises less than the cluster, by design, the test's name says so.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { EXIT_DATA_DIR_IN_USE } from '../../src/data-dir-lock.js';
import type { StoredGeofence } from '../../src/schemas/geofence.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { openOps, type OpName, type Ops } from './embedded-ops.js';

type Node = Omit<Ops, 'close'>;

/** Node b: the same operations, run by a worker thread on its own opening of `dir`. */
async function workerNode(dir: string): Promise<Node & { close(): Promise<void> }> {
  const w = new Worker(new URL('./embedded-worker.js', import.meta.url), { workerData: { dir } });
  const waiting = new Map<number, { ok(v: unknown): void; fail(e: unknown): void }>();
  let next = 0;
  w.on('message', (m: { id?: number; value?: unknown; error?: { code?: string; name?: string; message?: string } }) => {
    const p = m.id === undefined ? undefined : waiting.get(m.id);
    if (!p) return;
    waiting.delete(m.id!);
    if (m.error) p.fail(Object.assign(new Error(m.error.message), m.error));
    else p.ok(m.value);
  });
  await once(w, 'message');
  const call = (op: OpName | 'close', args: unknown[]) => new Promise((ok, fail) => {
    waiting.set(++next, { ok, fail });
    w.postMessage({ id: next, op, args });
  });
  return new Proxy({} as Node & { close(): Promise<void> }, {
    // Not a thenable: `then` is no operation (an async function's answer is awaited through it).
    get: (_t, op: string) => (op === 'then' ? undefined : op === 'close'
      ? async () => { await call('close', []); await w.terminate(); }
      : (...args: unknown[]) => call(op as OpName, args)),
  });
}

const dir = tempDir();
const a = openOps(dir);
const ready = workerNode(dir);
after(async () => { await (await ready).close(); await a.close(); });

const fence = (appKey: string, id: string, tag: string | null = 'shop', expiresAt: string | null = null): StoredGeofence => ({
  id, app_key: appKey, tag, location: { lat: 43.7, long: 7.4, radius: 100 }, ttl: 0, push_text: null,
  created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z', expires_at: expiresAt,
} as StoredGeofence);

test('apps: created through the HTTP thread\'s registry, read by the delivery worker\'s reader in another thread; deletion too [embedded: one writer, no watch: the reader reads at each delivery]', async () => {
  const b = await ready;
  const key = await a.appsCreate('one');
  assert.equal(await b.appsRead(key), 'one');
  assert.equal(await b.appsRead('ak_none'), null);
  assert.equal(await a.appsDelete(key), true);
  assert.equal(await a.appsDelete(key), false, 'already gone');
  assert.equal(await b.appsRead(key), null);
});

test('users: two threads committing one user\'s record at once lose no update, and each reads the other\'s', async () => {
  const b = await ready;
  const N = 40;
  // b's commits are queued in its thread first, so both threads' steps overlap (each spins 0.3 ms).
  const theirs = Array.from({ length: N }, (_, i) => b.usersBump('ak_u', 'alice', 'b' + i, 0.3));
  for (let i = 0; i < N; i++) await a.usersBump('ak_u', 'alice', 'a' + i, 0.3);
  await Promise.all(theirs);
  const ids = new Set(await b.usersRead('ak_u', 'alice'));
  const all = Array.from({ length: N }, (_, i) => ['a' + i, 'b' + i]).flat();
  assert.deepEqual(all.filter((id) => !ids.has(id)), [], 'every commit of both threads is in the record');
  assert.equal(ids.size, 2 * N, 'and none twice');
  assert.equal(await b.usersErase('ak_u', 'alice'), 1);
  assert.equal(await a.usersRead('ak_u', 'alice'), null);
  assert.equal(await a.usersErase('ak_u', 'alice'), 0);
});

test('users: a user id is any string, scoped by app', async () => {
  const b = await ready;
  const id = 'Ünïcode user/with.dots and * > spaces';
  await a.usersBump('ak_s1', id, 'x');
  assert.deepEqual(await b.usersRead('ak_s1', id), ['x']);
  assert.equal(await b.usersRead('ak_s2', id), null);
  assert.equal(await b.usersErase('ak_s1', id), 1);
});

test('learned: merges from two threads add up, each reads the sum and what the other taught; an app\'s deletion on one is seen by the other', async () => {
  const b = await ready;
  await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).learnedPriors('ak_l', [1, 2])));
  assert.deepEqual(await a.learnedPriors('ak_l', [0, 0]), [10, 20]);
  assert.deepEqual(await b.learnedPriors('ak_l', [0, 0]), [10, 20]);
  await a.learnedTeach('ak_l', 'aa:bb:cc:dd:ee:ff', 43.7, 7.4);
  const place = await b.learnedPlace('ak_l', 'aa:bb:cc:dd:ee:ff');
  assert.ok(place?.includes(43.7) && place.includes(7.4), `the place taught: ${JSON.stringify(place)}`);
  assert.equal(await b.learnedPlace('ak_other', 'aa:bb:cc:dd:ee:ff'), null);
  assert.equal(await b.learnedDropApp('ak_l'), 2, 'the priors and the place');
  assert.deepEqual(await a.learnedPriors('ak_l', [0, 0]), [0, 0]);
  assert.equal(await a.learnedPlace('ak_l', 'aa:bb:cc:dd:ee:ff'), null);
});

test('fences: the HTTP thread writes, another thread\'s store and detection view read, list and see updates; expiry is decided at read time [embedded: one writer, no watch: a detection reads the change log each request]', async () => {
  const b = await ready;
  const [f1, f2, f3] = ['gf_000000000000000000000001', 'gf_000000000000000000000002', 'gf_000000000000000000000003'];
  await a.fencesPut(fence('ak_f', f1));
  await a.fencesPut(fence('ak_f', f2, 'cafe'));
  await a.fencesPut(fence('ak_f', f3, 'shop', new Date(Date.now() - 1000).toISOString()));
  assert.equal(await b.fencesGet('ak_f', f1), 'shop');
  assert.equal(await b.fencesViewed('ak_f', f1), 'shop');
  assert.equal(await b.fencesGet('ak_f', f3), null, 'expired');
  assert.equal(await b.fencesGet('ak_other', f1), null, 'another app');
  const first = await b.fencesList('ak_f', 1);
  assert.deepEqual(first, { ids: [f1], next: f1 });
  assert.deepEqual((await b.fencesList('ak_f', 5, first.next!)).ids, [f2]);
  assert.deepEqual((await b.fencesList('ak_f', 5, undefined, 'cafe')).ids, [f2]);
  assert.equal(await a.fencesRetag('ak_f', f1, 'bar'), 'bar');
  assert.equal(await b.fencesGet('ak_f', f1), 'bar');
  await until('the detection view to see the update', async () => (await b.fencesViewed('ak_f', f1)) === 'bar');
  assert.equal(await a.fencesRemove('ak_f', f2), true);
  assert.equal(await a.fencesRemove('ak_f', f2), false);
  assert.equal(await b.fencesGet('ak_f', f2), null);
});

test('replay: a signature accepted once is refused after, also by the cache another opening of the directory reads [embedded: one cache per process, read when opened: as after a restart]', async () => {
  const b = await ready;
  const ts = Math.floor(Date.now() / 1000);
  const sig = 'ab'.repeat(32);
  await a.replayAccept('ak_p', sig, ts);
  await assert.rejects(a.replayAccept('ak_p', sig, ts), { code: 'replayed_request' });
  // b's cache opens now, after a's record: it is what a restarted server reads.
  await assert.rejects(b.replayAccept('ak_p', sig, ts), { code: 'replayed_request' }, 'by the other opening');
  await b.replayAccept('ak_p', 'cd'.repeat(32), ts);
  await b.replayAccept('ak_q', sig, ts);
});

test('lease [embedded: none, the data directory has one owner: another process\'s lock on it is refused; a thread of the owner is no other owner]', async () => {
  await a.lock();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e',
    `const { lockDataDir } = await import(${JSON.stringify(new URL('../../src/data-dir-lock.js', import.meta.url).href)});
     try { lockDataDir(${JSON.stringify(dir)}); process.exit(0); } catch (err) { console.log(err.name); process.exit(err.exitCode ?? 1); }`], { encoding: 'utf8' });
  assert.equal(child.stdout.trim(), 'DataDirInUse');
  assert.equal(child.status, EXIT_DATA_DIR_IN_USE);
});
