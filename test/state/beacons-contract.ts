/**
 * The beacon store's contract (src/beacons/store.ts), one suite for both implementations: `open`
 * gives two nodes' stores over one registry (two connections to one NATS server; for the
 * embedded store, the one store the process owns, as both). What a node wrote, the other reads
 * after `settle`; its detection copy follows without asking (`until`).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { BeaconStore } from '../../src/beacons/store.js';
import type { BeaconInput } from '../../src/schemas/beacon.js';
import { DwellError } from '../../src/errors.js';
import { until } from '../helpers/until.js';

export interface BeaconPair { kind: 'lmdb' | 'nats'; a: BeaconStore; b: BeaconStore; close(): Promise<void> }

const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
const beacon = (minor: number, over: Partial<BeaconInput> = {}): BeaconInput =>
  ({ uuid: UUID, major: 1, minor, venue_id: 'n1', location: null, tag: 'shop', ...over });
const isConflict = (err: unknown) => err instanceof DwellError && err.code === 'conflict';
const settled = async (s: BeaconStore) => { await s.settle(); return s; };

export function beaconContract(open: () => Promise<BeaconPair>): void {
  let p: BeaconPair;
  const ready = open().then((x) => (p = x));
  after(() => p?.close());

  test('a beacon created on one node is read, listed and indexed on the other', async () => {
    await ready;
    const rec = await p.a.create('ak_read', beacon(1));
    assert.deepEqual(p.a.get('ak_read', rec.id), rec, 'the writer reads its write at once');
    await until('the other node\'s copy to hold it', () => p.b.get('ak_read', rec.id));
    const b = await settled(p.b);
    assert.deepEqual(b.get('ak_read', rec.id), rec);
    assert.deepEqual(b.list('ak_read', { limit: 10 }).items.map((r) => r.id), [rec.id]);
    assert.deepEqual([...b.all('ak_read')].map((r) => r.id), [rec.id]);
    assert.ok(b.version('ak_read') > 0);
    assert.equal(b.get('ak_other', rec.id), undefined, 'another app never reads it');
  });

  test('the same uuid/major/minor created on both nodes at once: one wins, the other is a conflict', async () => {
    await ready;
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.allSettled([p.a.create('ak_race', beacon(round)), p.b.create('ak_race', beacon(round, { venue_id: 'n2' }))]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, `round ${round}`);
      const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.ok(isConflict(lost.reason), String(lost.reason));
    }
    assert.equal((await settled(p.a)).list('ak_race', { limit: 100 }).items.length, 10);
  });

  test('update on the other node: identity changes free the old one; a taken identity is a conflict', async () => {
    await ready;
    const one = await p.a.create('ak_upd', beacon(1));
    const two = await p.a.create('ak_upd', beacon(2));
    await settled(p.b);
    const moved = await p.b.update('ak_upd', one.id, { minor: 3, tag: null });
    assert.deepEqual([moved?.minor, moved?.tag, moved?.venue_id], [3, null, 'n1']);
    await assert.rejects(p.a.update('ak_upd', two.id, { minor: 3 }), isConflict);
    await settled(p.a);
    assert.equal(p.a.get('ak_upd', one.id)?.minor, 3);
    const again = await p.a.create('ak_upd', beacon(1));
    assert.notEqual(again.id, one.id, 'minor 1 is free again');
    assert.equal(await p.b.update('ak_upd', 'bc_' + '0'.repeat(24), { tag: 'x' }), undefined);
    assert.equal((await settled(p.b)).list('ak_upd', { limit: 10 }).items.length, 3);
  });

  test('delete on one node; the other no longer finds it', async () => {
    await ready;
    const rec = await p.b.create('ak_del', beacon(1));
    await settled(p.a);
    assert.equal(await p.a.delete('ak_del', rec.id), true);
    assert.equal(await p.b.delete('ak_del', rec.id), false, 'already gone');
    assert.equal((await settled(p.b)).get('ak_del', rec.id), undefined);
    await until('the other node\'s index to drop it', () => [...p.b.all('ak_del')].length === 0);
  });

  test('imports from both nodes at once: one record per identity, every line counted once', async () => {
    await ready;
    const lines = (tag: string) => Array.from({ length: 300 }, (_, i) => ({ input: beacon(i, { tag }), patch: { tag } }));
    const [ra, rb] = await Promise.all([p.a.upsertMany('ak_imp', lines('a')), p.b.upsertMany('ak_imp', lines('b'))]);
    assert.equal(ra.created + rb.created, 300);
    assert.equal(ra.created + ra.updated + rb.created + rb.updated, 600);
    const recs = (await settled(p.a)).list('ak_imp', { limit: 1000 }).items;
    assert.equal(recs.length, 300);
    assert.equal(new Set(recs.map((r) => r.minor)).size, 300);
  });

  test('list: by tag, in pages', async () => {
    await ready;
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await p.a.create('ak_list', beacon(i, { tag: i % 2 ? 'odd' : 'even' }))).id);
    const b = await settled(p.b);
    const first = b.list('ak_list', { limit: 2 });
    const rest = b.list('ak_list', { limit: 10, after: first.next! });
    assert.deepEqual([...first.items, ...rest.items].map((r) => r.id), [...ids].sort());
    assert.equal(rest.next, null);
    assert.deepEqual(b.list('ak_list', { tag: 'odd', limit: 10 }).items.map((r) => r.id).sort(), [ids[1], ids[3]].sort());
  });

  test('deleting an app on one node empties it on the other, and moves its version', async () => {
    await ready;
    for (let i = 0; i < 20; i++) await p.a.create('ak_gone', beacon(i));
    await p.a.create('ak_kept', beacon(1));
    const before = (await settled(p.b)).version('ak_gone');
    assert.equal(await p.b.deleteApp('ak_gone'), 20);
    const a = await settled(p.a);
    assert.deepEqual(a.list('ak_gone', { limit: 100 }).items, []);
    assert.notEqual(a.version('ak_gone'), before);
    assert.equal(a.list('ak_kept', { limit: 100 }).items.length, 1, 'another app keeps its beacons');
    assert.equal(await p.a.deleteApp('ak_gone'), 0);
  });
}
