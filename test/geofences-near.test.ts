/**
 * The near search's page as answered: its JSON, written from each fence's cached open JSON, is
 * byte for byte JSON.stringify of the list (nearest first, distances, cursor); a fence's cached
 * entry follows its changes (an upsert takes a new slot, read afresh) and a rebuild's renumbering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeOf } from '../src/geofences/geometry.js';
import { FenceIndex } from '../src/geofences/fence-index.js';
import { nearSearch } from '../src/geofences/near.js';
import { nearJson } from '../src/geofences/routes.js';
import { publicGeofence } from '../src/geofences/public.js';
import type { StoredGeofence } from '../src/schemas/geofence.js';

const P = { lat: 43.7384, long: 7.4246 };
const at = '2026-01-01T00:00:00.000Z';

function rec(i: number, over: Partial<StoredGeofence> = {}): StoredGeofence {
  return {
    id: `gf_${String(i).padStart(24, '0')}`, app_key: 'app', tag: i % 2 ? 'odd' : null,
    location: { lat: P.lat + i * 0.0003, long: P.long, radius: 20 + i }, ttl: 0, push_text: i === 1 ? 'Bienvenue — "café" \u2028' : null,
    dwell: i % 3 ? 60 : undefined, metadata: i === 2 ? { n: i, s: 'é\n', a: [1, null, { b: true }] } : undefined,
    external_id: i === 3 ? 'x-3' : undefined, created_at: at, updated_at: at, expires_at: null, ...over,
  } as StoredGeofence;
}

function setup(n: number) {
  const records = new Map<string, StoredGeofence>();
  const index = new FenceIndex();
  for (let i = 0; i < n; i++) {
    const r = rec(i);
    records.set(r.id, r);
    index.add(r.id, shapeOf(r.location), Infinity);
  }
  index.rebuild();
  let reads = 0;
  const read = (id: string) => { reads++; return records.get(id); };
  return { records, index, read, reads: () => reads };
}

test('a near page answers the bytes JSON.stringify makes of the list', () => {
  const { records, index, read } = setup(8);
  const now = Date.parse(at);
  for (const q of [{ ...P, radius: 1000, limit: 100 }, { ...P, radius: 1000, limit: 3 }, { ...P, radius: 1000, limit: 100, tag: 'odd' }]) {
    const page = nearSearch(index, read, q, now);
    const expected = {
      geofences: page.items.map((h) => ({ ...publicGeofence(records.get(h.id)!), distance: h.distance })),
      next_cursor: page.next === null ? null : Buffer.from(`${page.next.distance} ${page.next.id}`).toString('base64url'),
    };
    assert.equal(nearJson(page), JSON.stringify(expected));
    assert.deepEqual(JSON.parse(nearJson(page)), expected);
  }
  assert.equal(nearJson({ items: [], next: null }), JSON.stringify({ geofences: [], next_cursor: null }));
});

test('a cached fence is read once, again after it changes, and after a rebuild renumbers the slots', () => {
  const { records, index, read, reads } = setup(5);
  const now = Date.parse(at);
  const q = { ...P, radius: 1000, limit: 100 };
  nearSearch(index, read, q, now);
  assert.equal(reads(), 5);
  nearSearch(index, read, q, now);
  assert.equal(reads(), 5, 'all five from the cache');
  const changed = { ...rec(2), tag: 'new', metadata: { v: 2 } };
  records.set(changed.id, changed);
  index.upsert(changed.id, shapeOf(changed.location), Infinity);
  const page = nearSearch(index, read, q, now);
  assert.equal(reads(), 6, 'only the changed fence is read');
  assert.deepEqual(JSON.parse(nearJson(page)).geofences.find((g: { id: string }) => g.id === changed.id).metadata, { v: 2 });
  assert.deepEqual(nearSearch(index, read, { ...q, tag: 'new' }, now).items.map((h) => h.id), [changed.id]);
  index.rebuild();
  nearSearch(index, read, q, now);
  assert.equal(reads(), 11, 'a rebuild starts the cache again');
  const expiring = { ...rec(4), expires_at: '2026-01-01T00:00:01.000Z' };
  records.set(expiring.id, expiring);
  index.upsert(expiring.id, shapeOf(expiring.location), Date.parse(expiring.expires_at!));
  assert.equal(nearSearch(index, read, q, now).items.length, 5);
  assert.equal(nearSearch(index, read, q, now + 1000).items.length, 4, 'expired at its second');
});
