/** The geofence store and its sweep under an injected clock: expiry exact at read time, purge as delete, restarts. */
import { test } from 'node:test';
import { until } from './helpers/until.js';
import assert from 'node:assert/strict';
import { GeofenceStore } from '../src/geofences/store.js';
import { ExpirySweeper } from '../src/geofences/expiry.js';
import { liveIndex } from '../src/geofences/worker.js';
import { tempDir } from './helpers/server.js';

const T0 = Date.parse('2024-05-06T10:00:00.000Z');
const clock = () => {
  const c = { t: T0, now: () => c.t };
  return c;
};
const here = { lat: 43.74, long: 7.43, radius: 100 };
const input = (ttl: number, tag: string | null = null) => ({ tag, location: here, ttl, push_text: null });

test('a fence is invisible from the millisecond its ttl elapses, before any sweep', async () => {
  const c = clock();
  const store = new GeofenceStore(tempDir(), { now: c.now });
  try {
    const rec = await store.create('ak_a', input(10, 'shop'));
    assert.equal(rec.expires_at, '2024-05-06T10:00:10.000Z');
    c.t = T0 + 9_999;
    assert.ok(store.get('ak_a', rec.id));
    assert.equal(store.list('ak_a', { limit: 10 }).items.length, 1);
    c.t = T0 + 10_000;
    assert.equal(store.get('ak_a', rec.id), undefined);
    assert.equal(store.list('ak_a', { limit: 10 }).items.length, 0);
    assert.equal(store.list('ak_a', { tag: 'shop', limit: 10 }).items.length, 0);
    assert.equal(await store.update('ak_a', rec.id, { tag: 'x' }), undefined);
    assert.equal(await store.delete('ak_a', rec.id), false);
    assert.ok(store.raw('ak_a', rec.id), 'still stored until the sweep');
  } finally {
    await store.close();
  }
});

test('ttl 0 never expires; a ttl in an update restarts the clock from the update', async () => {
  const c = clock();
  const store = new GeofenceStore(tempDir(), { now: c.now });
  try {
    const forever = await store.create('ak_a', input(0));
    assert.equal(forever.expires_at, null);
    const rec = await store.create('ak_a', input(60));
    c.t = T0 + 50_000;
    const updated = await store.update('ak_a', rec.id, { ttl: 60 });
    assert.equal(updated?.expires_at, '2024-05-06T10:01:50.000Z');
    c.t = T0 + 100_000;
    assert.ok(store.get('ak_a', rec.id), 'alive past its first expiry');
    const untouched = await store.update('ak_a', rec.id, { tag: 'kept-clock' });
    assert.equal(untouched?.expires_at, '2024-05-06T10:01:50.000Z', 'no ttl: the clock runs on');
    c.t = T0 + 110_000;
    assert.equal(store.get('ak_a', rec.id), undefined);
    c.t = T0 + 10 * 365 * 86_400_000;
    assert.ok(store.get('ak_a', forever.id));
  } finally {
    await store.close();
  }
});

test('the sweep purges through the delete path: gone from storage, tags and the change log shows it', async () => {
  const c = clock();
  const store = new GeofenceStore(tempDir(), { now: c.now });
  const sweeper = new ExpirySweeper(store, { batch: 2 });
  try {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await store.create('ak_a', input(10 + i, 'tagged'))).id);
    const keep = await store.create('ak_a', input(0, 'tagged'));
    const v = store.version('ak_a');
    assert.equal(await sweeper.sweepOnce(), 0, 'nothing due yet');
    c.t = T0 + 12_000;
    assert.equal(await sweeper.sweepOnce(), 3, 'ttl 10, 11, 12 are due at +12 s, in batches of 2');
    assert.equal(store.raw('ak_a', ids[0]), undefined);
    assert.ok(store.raw('ak_a', ids[3]));
    assert.deepEqual(store.changesSince('ak_a', v)?.ids, ids.slice(0, 3), 'each purge is a change, as a delete is');
    assert.deepEqual(store.list('ak_a', { tag: 'tagged', limit: 10 }).items.map((r) => r.id).sort(), [ids[3], ids[4], keep.id].sort());
  } finally {
    await sweeper.stop();
    await store.close();
  }
});

test('expiry survives a restart: what came due while down is purged on start', async () => {
  const dir = tempDir();
  const c = clock();
  let store = new GeofenceStore(dir, { now: c.now });
  const rec = await store.create('ak_a', input(5));
  await store.close();
  c.t = T0 + 3_600_000;
  store = new GeofenceStore(dir, { now: c.now });
  const sweeper = new ExpirySweeper(store, { intervalMs: 60_000 }).start();
  try {
    // The sweep's first pass runs at start, not after its minute.
    await until('the pass at start to purge one', () => sweeper.purged > 0, 5_000, 10);
    assert.equal(sweeper.purged, 1);
    assert.equal(store.raw('ak_a', rec.id), undefined);
  } finally {
    await sweeper.stop();
    await store.close();
  }
});

test('apps are isolated: another app\'s id is not found, lists never mix', async () => {
  const store = new GeofenceStore(tempDir());
  try {
    const a = await store.create('ak_1', input(0, 'x'));
    const b = await store.create('ak_10', input(0, 'x'));
    assert.equal(store.get('ak_1', b.id), undefined);
    assert.equal(await store.delete('ak_1', b.id), false);
    assert.equal(await store.update('ak_1', b.id, { tag: 'stolen' }), undefined);
    assert.deepEqual(store.list('ak_1', { limit: 10 }).items.map((r) => r.id), [a.id]);
    assert.deepEqual(store.list('ak_10', { tag: 'x', limit: 10 }).items.map((r) => r.id), [b.id]);
    assert.equal(store.get('ak_10', b.id)?.tag, 'x');
  } finally {
    await store.close();
  }
});

test('pages follow the cursor to the end, by tag too', async () => {
  const store = new GeofenceStore(tempDir());
  try {
    const all = new Set<string>();
    for (let i = 0; i < 25; i++) all.add((await store.create('ak_a', input(0, i % 2 ? 'odd' : 'even'))).id);
    const walk = (tag?: string) => {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = store.list('ak_a', { tag, after, limit: 4 });
        seen.push(...page.items.map((r) => r.id));
        if (!page.next) return seen;
        assert.equal(page.items.length, 4);
        after = page.next;
      }
    };
    assert.deepEqual(new Set(walk()), all);
    assert.equal(walk().length, 25);
    assert.equal(walk('odd').length, 12);
    assert.equal(walk('even').length, 13);
  } finally {
    await store.close();
  }
});

test('a worker\'s index follows the change log, and rebuilds when the log was trimmed', async () => {
  const store = new GeofenceStore(tempDir());
  try {
    const a = await store.create('ak_a', input(0));
    const index = liveIndex(store, 'k', 'ak_a');
    assert.equal(index.size, 1);
    const b = await store.create('ak_a', input(0));
    await store.delete('ak_a', a.id);
    assert.equal(liveIndex(store, 'k', 'ak_a'), index, 'updated in place from the log');
    assert.equal(index.size, 1);
    assert.ok(index.isLive(b.id, Date.now()) && !index.isLive(a.id, Date.now()));
    for (let i = 0; i < 5; i++) await store.create('ak_a', input(0));
    await store.trimChanges(2);
    assert.equal(store.changesSince('ak_a', 2), null, 'the log no longer reaches back');
    const rebuilt = liveIndex(store, 'k', 'ak_a');
    assert.notEqual(rebuilt, index);
    assert.equal(rebuilt.size, 6);
  } finally {
    await store.close();
  }
});

test('writes issued together apply in issue order: no lost update, a contiguous change log', async () => {
  const store = new GeofenceStore(tempDir());
  try {
    const a = await store.create('ak_a', input(0, 'first'));
    const b = await store.create('ak_a', input(0));
    const v0 = store.version('ak_a');
    // Issued in one turn of the event loop, none awaited before the next.
    const ops = [
      store.update('ak_a', a.id, { tag: 'second' }),
      store.update('ak_a', a.id, { push_text: 'hello' }),
      store.create('ak_a', input(0)),
      store.delete('ak_a', b.id),
      store.update('ak_a', b.id, { tag: 'too late' }),
      store.update('ak_a', a.id, { tag: 'third' }),
    ];
    const [u1, u2, , gone, late, u3] = await Promise.all(ops);
    assert.equal((u1 as { tag: string }).tag, 'second');
    assert.equal((u2 as { push_text: string }).push_text, 'hello');
    assert.equal(gone, true);
    assert.equal(late, undefined, 'an update issued after a delete finds nothing');
    assert.deepEqual([(u3 as { tag: string }).tag, (u3 as { push_text: string }).push_text], ['third', 'hello'], 'each update built on the one before');
    const stored = store.get('ak_a', a.id)!;
    assert.deepEqual([stored.tag, stored.push_text], ['third', 'hello']);
    assert.equal(store.get('ak_a', b.id), undefined);
    const log = store.changesSince('ak_a', v0);
    assert.ok(log, 'the log reaches back: no gap in its numbers');
    assert.equal(log.ids.length, 5, 'five writes took effect: three updates, a create, a delete');
    assert.equal(store.version('ak_a'), v0 + 5);
  } finally {
    await store.close();
  }
});
