/**
 * The state interface's contract (src/state/types.ts), run on both engines' production kits:
 * `open` gives two nodes' views of one state (nats.test.ts: two connections to one NATS cluster;
 * lmdb.test.ts: two openings of one data directory in one process, the only process that may
 * write it). Where the embedded engine promises less by design, the test's name says so
 * (`oneOwner`). embedded.test.ts adds what the embedded engine promises across threads.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { StateKit } from '../../src/state/types.js';
import { replaysOf } from '../../src/server/replay-state.js';
import type { AppRecord } from '../../src/schemas/app.js';
import type { StoredGeofence } from '../../src/schemas/geofence.js';
import { until } from '../helpers/until.js';

export type Node = Pick<StateKit, 'apps' | 'users' | 'learned' | 'fences' | 'replay' | 'lease'>;
/** `restartB`: node b opened again now (oneOwner: its replay claims are read when it opens, as after a restart). */
export interface Pair { a: Node; b: Node; restartB?(): Promise<Node>; close(): Promise<void> }

const app = (key: string): AppRecord => ({
  app_key: key, name: 'n', delivery: { method: 'sync' }, confirm_dwell_s: 300,
  secrets: [{ value: 's', expires_at: null }], created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z',
} as AppRecord);

const fence = (appKey: string, id: string, tag: string | null = 'shop', expiresAt: string | null = null): StoredGeofence => ({
  id, app_key: appKey, tag, location: { lat: 43.7, long: 7.4, radius: 100 }, ttl: 0, push_text: null,
  created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z', expires_at: expiresAt,
} as StoredGeofence);

/**
 * `where`: what the state runs on, in every test's name (e.g. one NATS server, not three).
 * `unkept`: why a promise of conditional writes cannot hold there (nats-io/nats-server#4320): the
 * tests that depend on it are reported as todo under that reason instead of failing or passing by chance.
 */
export interface ContractOptions {
  where?: string; unkept?: string;
  /**
   * Why the state has one owner (the embedded engine: one process owns the data directory): every
   * opening holds every lease, and another opening knows a claim once it opens (`restartB`).
   */
  oneOwner?: string;
}

export function stateContract(open: () => Promise<Pair>, opts: ContractOptions = {}): void {
  const named = (name: string) => (opts.where ? `${name} [${opts.where}]` : name);
  const exact = (name: string, fn: () => Promise<void>) =>
    (opts.unkept ? test(named(name), { todo: opts.unkept }, fn) : test(named(name), fn));
  let p: Pair;
  const ready = open().then((x) => (p = x));
  after(() => p?.close());

  test(named('apps: written on one node, read and watched on the other; removal too'), async () => {
    await ready;
    const seen = new Map<string, AppRecord | undefined>();
    const w = p.b.apps.watch((k, v) => seen.set(k, v));
    await w.ready;
    await p.a.apps.put(app('ak_one'));
    assert.equal((await p.b.apps.get('ak_one'))?.name, 'n');
    assert.ok((await p.b.apps.all()).some((x) => x.app_key === 'ak_one'));
    await until('the watch to see the new app', () => seen.get('ak_one')?.app_key === 'ak_one');
    assert.equal(await p.b.apps.remove('ak_one'), true);
    assert.equal(await p.a.apps.remove('ak_one'), false, 'already gone');
    await until('the watch to see the removal', () => seen.has('ak_one') && seen.get('ak_one') === undefined);
    w.stop();
  });

  exact('users: concurrent read-modify-writes from two nodes lose no update', async () => {
    await ready;
    const bump = (n: Node) => n.users.modify('ak_u', 'alice', (rec) => {
      rec.r.push('x');
      return { record: rec, result: rec.r.length };
    });
    await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 ? p.a : p.b)));
    assert.equal((await p.a.users.read('ak_u', 'alice'))?.r.length, 20);
    assert.deepEqual(await p.b.users.users('ak_u'), ['alice']);
    assert.equal(await p.b.users.modify('ak_u', 'alice', () => ({ record: null, result: 'gone' })), 'gone');
    assert.equal(await p.a.users.read('ak_u', 'alice'), undefined);
    assert.equal(await p.a.users.remove('ak_u', 'alice'), false);
  });

  test(named('users: a user id is any string, scoped by app'), async () => {
    await ready;
    const id = 'Ünïcode user/with.dots and * > spaces';
    await p.a.users.modify('ak_s1', id, (rec) => ({ record: { ...rec, r: ['a'] }, result: 0 }));
    assert.deepEqual((await p.b.users.read('ak_s1', id))?.r, ['a']);
    assert.equal(await p.b.users.read('ak_s2', id), undefined);
    assert.deepEqual(await p.b.users.users('ak_s1'), [id]);
    assert.equal(await p.b.users.remove('ak_s1', id), true);
  });

  test(named('users: the retention sweep removes records last written before the cutoff, and only those'), async () => {
    await ready;
    await p.a.users.modify('ak_r', 'old', (rec) => ({ record: rec, result: 0 }));
    const cutoff = Date.now() + 86_400_000 * 2; // after every write so far
    assert.ok((await p.b.users.sweep(cutoff)) >= 1);
    assert.equal(await p.a.users.read('ak_r', 'old'), undefined);
    await p.a.users.modify('ak_r', 'new', (rec) => ({ record: rec, result: 0 }));
    await p.b.users.sweep(0);
    assert.ok(await p.a.users.read('ak_r', 'new'));
  });

  test(named('learned: merges from two nodes add up, and every node reads the sum'), async () => {
    await ready;
    const key = ['kp', 'ak_l', ''] as const;
    p.b.learned.peek(key);
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? p.a : p.b).learned.merge<number[]>(key, (old) => [(old?.[0] ?? 0) + 1])));
    await until('both nodes to read the summed priors', () => p.b.learned.peek<number[]>(key)?.[0] === 10 && p.a.learned.peek<number[]>(key)?.[0] === 10);
    await p.a.learned.merge<number[]>(['apx', 'ak_l', 'aa:bb:cc:dd:ee:ff'], () => [1, 2, 3, 1]);
    await p.a.learned.merge(['bl', 'ak_l', 'e2c56db5-dffb-48d2-b060-d0f5a71096e0:1:2'], () => ({ n: 1, v: { n1: [1, -20] } }));
    // A node writes what it learned once a window (state/nats/learned-flush.ts): dropped once stored.
    await until('the other node to read them', () => p.b.learned.peek(['apx', 'ak_l', 'aa:bb:cc:dd:ee:ff']) !== undefined &&
      p.b.learned.peek(['bl', 'ak_l', 'e2c56db5-dffb-48d2-b060-d0f5a71096e0:1:2']) !== undefined);
    assert.equal(await p.b.learned.dropApp('ak_l'), 3);
    await until('the drop to reach the other node', () => p.a.learned.peek(key) === undefined);
  });

  test(named('learned: what a node was still learning for an app when the app was deleted is never stored'), async () => {
    await ready;
    const gone = ['kp', 'ak_gone', ''] as const, kept = ['kp', 'ak_kept', ''] as const, later = ['kp', 'ak_kept', 'later'] as const;
    await p.a.apps.put(app('ak_gone'));
    await p.a.apps.put(app('ak_kept'));
    // Learned on node a (in the cluster: held for a's window), then the app deleted through node b.
    await p.a.learned.merge<number[]>(gone, () => [1]);
    await p.a.learned.merge<number[]>(kept, () => [1]);
    assert.equal(await p.b.apps.remove('ak_gone'), true);
    await p.b.learned.dropApp('ak_gone');
    // Learned after the deletion: once b reads it, every window before it has been written.
    await p.a.learned.merge<number[]>(later, () => [1]);
    await until('what was learned after the deletion to reach node b', () => p.b.learned.peek(later) !== undefined && p.b.learned.peek(kept) !== undefined);
    assert.equal(p.b.learned.peek(gone), undefined, 'the deleted app\'s learning was stored after its deletion');
    await until('node a to hold none of it either', () => p.a.learned.peek(gone) === undefined);
  });

  test(named('fences: one node writes, the other reads, lists, watches; expiry is decided at read time'), async () => {
    await ready;
    const seen = new Map<string, StoredGeofence | undefined>();
    const w = p.b.fences.watch((k, v) => seen.set(k, v));
    await w.ready;
    await p.a.fences.put(fence('ak_f', 'gf_000000000000000000000001'));
    await p.a.fences.put(fence('ak_f', 'gf_000000000000000000000002', 'cafe'));
    await p.a.fences.put(fence('ak_f', 'gf_000000000000000000000003', 'shop', new Date(Date.now() - 1000).toISOString()));
    assert.equal((await p.b.fences.get('ak_f', 'gf_000000000000000000000001'))?.tag, 'shop');
    assert.equal(await p.b.fences.get('ak_f', 'gf_000000000000000000000003'), undefined, 'expired');
    assert.equal(await p.b.fences.get('ak_other', 'gf_000000000000000000000001'), undefined, 'another app');
    const all = await p.b.fences.list('ak_f', { limit: 1 });
    assert.deepEqual([all.items.map((f) => f.id), all.next], [['gf_000000000000000000000001'], 'gf_000000000000000000000001']);
    const rest = await p.b.fences.list('ak_f', { limit: 5, after: all.next! });
    assert.deepEqual(rest.items.map((f) => f.id), ['gf_000000000000000000000002']);
    assert.deepEqual((await p.b.fences.list('ak_f', { limit: 5, tag: 'cafe' })).items.map((f) => f.id), ['gf_000000000000000000000002']);
    const up = await p.b.fences.update('ak_f', 'gf_000000000000000000000001', (f) => ({ ...f, tag: 'bar' }));
    assert.equal(up?.tag, 'bar');
    assert.equal((await p.a.fences.get('ak_f', 'gf_000000000000000000000001'))?.tag, 'bar');
    await until('the watch to see the update', () => seen.get('ak_f.gf_000000000000000000000001')?.tag === 'bar');
    assert.equal(await p.a.fences.remove('ak_f', 'gf_000000000000000000000002'), true);
    assert.equal(await p.b.fences.remove('ak_f', 'gf_000000000000000000000002'), false);
    await until('the watch to see the removal', () => seen.has('ak_f.gf_000000000000000000000002') && seen.get('ak_f.gf_000000000000000000000002') === undefined);
    w.stop();
  });

  test(named('fences: a watch caught up holds every fence the other node wrote before (a detection right after a create sees it)'), async () => {
    await ready;
    const seen = new Set<string>();
    const w = p.b.fences.watch((k, v) => { if (v) seen.add(k); });
    await w.ready;
    for (let i = 0; i < 40; i++) {
      const id = `gf_${(0xc0 + i).toString(16).padStart(24, '0')}`;
      await p.a.fences.put(fence('ak_c', id));
      assert.equal(await w.caughtUp(5_000), true, 'caught up within 5 s');
      assert.ok(seen.has(`ak_c.${id}`), `fence ${i} in the watching copy as soon as caughtUp resolves`);
    }
    w.stop();
  });

  const owned = (name: string, less: string) => (opts.oneOwner ? `${name} [${less}: ${opts.oneOwner}]` : name);

  exact(owned('replay: a signature accepted once is refused after, on every node', 'the other opening once it opens'), async () => {
    await ready;
    const ts = Math.floor(Date.now() / 1000);
    // The signed-request walk's view of the claims (server/signed.ts): check, then record.
    const accept = async (n: Node, sig: string) => { const r = replaysOf(n.replay); r.check('ak_p', sig); await r.record('ak_p', sig, ts); };
    const sig = 'ab'.repeat(32);
    await accept(p.a, sig);
    await assert.rejects(accept(p.a, sig), { code: 'replayed_request' });
    const other = opts.oneOwner ? await p.restartB!() : p.b;
    await assert.rejects(accept(other, sig), { code: 'replayed_request' }, 'on the other node');
    await accept(other, 'cd'.repeat(32));
  });

  test(named(owned('lease: one holder at a time, renewed by asking again', 'every opening of the owner holds it')), async () => {
    await ready;
    assert.equal(await p.a.lease.hold('sweep'), true);
    assert.equal(await p.a.lease.hold('sweep'), true, 'renewed');
    assert.equal(await p.b.lease.hold('sweep'), opts.oneOwner !== undefined, opts.oneOwner ? 'held by the owner\'s other opening too' : 'held by the other node');
  });
}
