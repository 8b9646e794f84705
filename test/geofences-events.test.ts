/** Entry and exit events: the pure hysteresis over a sequence of fixes, then a worker's fence view over LMDB. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate, evaluateAlone, NO_PRESENCE, type FencePresence, type Fix } from '../src/geofences/events.js';
import { FenceIndex } from '../src/geofences/fence-index.js';
import { circle } from '../src/geofences/geometry.js';
import { M_PER_DEG } from '../src/geo/distance.js';
import { GeofenceStore } from '../src/geofences/store.js';
import { fenceView } from '../src/geofences/worker.js';
import { tempDir } from './helpers/server.js';
import { stampAfter } from './helpers/stamps.js';

// A 100 m fence at the Place du Casino; fixes walk north from its centre.
const C = { lat: 43.73976, long: 7.42766 };
const north = (m: number) => C.lat + m / M_PER_DEG;
const fix = (minute: number, metres: number, accuracy?: number): Fix => ({
  timestamp: stampAfter('2024-05-06T07:00:00+02:00', minute), lat: north(metres), long: C.long, ...(accuracy !== undefined ? { accuracy } : {}),
});

function view() {
  const index = new FenceIndex();
  index.upsert('gf_casino', circle(C.lat, C.long, 100), Infinity);
  return { index, info: (id: string) => (id === 'gf_casino' ? { tag: 'casino', push_text: 'Welcome!' } : undefined) };
}

test('entry then exit from a sequence of fixes; straddling fixes change nothing', () => {
  const fixes = [
    fix(0, 300, 20),  // outside
    fix(1, 110, 30),  // straddles the edge from outside: no entry
    fix(2, 40, 20),   // clearly inside: entry
    fix(3, 0, 10),    // inside again: nothing
    fix(4, 90, 30),   // straddles from inside: no exit
    fix(5, 130, 20),  // clearly outside: exit
    fix(6, 140),      // no accuracy given: a point, still outside
  ];
  const out = evaluate(view(), NO_PRESENCE, fixes, Date.now());
  assert.deepEqual(out.events, [
    { type: 'entry', geofence_id: 'gf_casino', tag: 'casino', push_text: 'Welcome!', metadata: null, timestamp: fixes[2].timestamp, location: { lat: fixes[2].lat, long: C.long, accuracy: 20 } },
    { type: 'exit', geofence_id: 'gf_casino', tag: 'casino', push_text: 'Welcome!', metadata: null, timestamp: fixes[5].timestamp, location: { lat: fixes[5].lat, long: C.long, accuracy: 20 } },
  ]);
  assert.deepEqual(out.presence.inside, []);
});

test('fixes are taken in time order, and a straddling first fix is no entry', () => {
  const out = evaluate(view(), NO_PRESENCE, [fix(9, 500), fix(8, 50), fix(7, 100, 50)], Date.now());
  assert.deepEqual(out.events.map((e) => [e.type, e.timestamp.slice(14, 16)]), [['entry', '08'], ['exit', '09']]);
});

test('presence carries across requests; a retried request repeats nothing', () => {
  const v = view();
  const first = evaluate(v, NO_PRESENCE, [fix(0, 500), fix(1, 10)], Date.now());
  assert.deepEqual(first.events.map((e) => e.type), ['entry']);
  assert.deepEqual(first.presence.inside, ['gf_casino']);
  const retry = evaluate(v, first.presence, [fix(0, 500), fix(1, 10)], Date.now());
  assert.deepEqual(retry.events, []);
  assert.equal(retry.changed, false);
  const late = evaluate(v, first.presence, [fix(0, 500)], Date.now());
  assert.deepEqual(late.events, [], 'a fix older than the entry cannot undo it');
  const next = evaluate(v, first.presence, [fix(2, 20), fix(3, 400)], Date.now());
  assert.deepEqual(next.events.map((e) => e.type), ['exit']);
});

test('a fence that expires while the user is inside raises no exit', () => {
  const index = new FenceIndex();
  const now = Date.now();
  index.upsert('gf_short', circle(C.lat, C.long, 100), now + 1000);
  const v = { index, info: () => ({ tag: null, push_text: null }) };
  const inside = evaluate(v, NO_PRESENCE, [fix(0, 0)], now);
  assert.deepEqual(inside.events.map((e) => e.type), ['entry']);
  const later = evaluate(v, inside.presence, [fix(1, 1000)], now + 1000);
  assert.deepEqual(later.events, []);
  assert.deepEqual(later.presence.inside, []);
});

test('no user: the earliest fix says where the device is, later fixes raise the crossings they show', () => {
  const v = view();
  const now = Date.now();
  assert.deepEqual(evaluateAlone(v, [fix(0, 0, 10), fix(1, 5, 10)], now), [], 'inside from the start: no entry');
  assert.deepEqual(evaluateAlone(v, [fix(1, 5, 10), fix(0, 300, 10)], now).map((e) => [e.type, e.timestamp]), [['entry', fix(1, 0).timestamp]], 'outside, then inside (in time order)');
  assert.deepEqual(evaluateAlone(v, [fix(0, 5, 10), fix(1, 300, 10), fix(2, 0, 10)], now).map((e) => e.type), ['exit', 'entry']);
  assert.deepEqual(evaluateAlone(v, [], now), []);
});

test('a worker\'s fence view over LMDB: per app, current with the store; presence carried by the caller', async () => {
  const dir = tempDir();
  // The user's record's part (users/presence.ts), kept here as a detection commit keeps it.
  const kept = new Map<string, FencePresence>();
  const geofenceEvents = (_dir: string, app: string, user: string | null, fixes: Fix[], now: number) => {
    const view = fenceView(dir, app);
    if (!view) return [];
    if (user === null) return evaluateAlone(view, fixes, now);
    const ev = evaluate(view, kept.get(`${app}/${user}`) ?? NO_PRESENCE, fixes, now);
    kept.set(`${app}/${user}`, ev.presence);
    return ev.events;
  };
  const store = new GeofenceStore(dir);
  try {
    const a = await store.create('ak_a', { tag: 'casino', location: { lat: C.lat, long: C.long, radius: 100 }, ttl: 0, push_text: 'Hi' });
    await store.create('ak_b', { tag: 'b-only', location: { lat: C.lat, long: C.long, radius: 1000 }, ttl: 0, push_text: null });
    const now = Date.now();
    const entry = geofenceEvents(dir, 'ak_a', 'u1', [fix(0, 500, 10), fix(1, 5, 10)], now);
    assert.deepEqual(entry.map((e) => [e.type, e.geofence_id, e.tag, e.push_text]), [['entry', a.id, 'casino', 'Hi']]);
    assert.deepEqual(geofenceEvents(dir, 'ak_a', 'u1', [fix(1, 5, 10)], now), [], 'the same fix again: nothing');
    assert.deepEqual(geofenceEvents(dir, 'ak_a', 'u2', [fix(1, 5, 10)], now).map((e) => e.type), ['entry'], 'another user has their own presence');
    assert.deepEqual(geofenceEvents(dir, 'ak_a', 'u1', [fix(2, 600, 10)], now).map((e) => e.type), ['exit']);
    assert.deepEqual(geofenceEvents(dir, 'ak_c', 'u1', [fix(3, 5, 10)], now), [], 'an app without fences');
    const b = geofenceEvents(dir, 'ak_b', 'u1', [fix(3, 5, 10)], now);
    assert.deepEqual(b.map((e) => e.tag), ['b-only'], 'app b sees only its own fence');
    // A fence created after the worker built its index is seen on the next call.
    const late = await store.create('ak_a', { tag: 'late', location: { lat: north(2000), long: C.long, radius: 50 }, ttl: 0, push_text: null });
    assert.deepEqual(geofenceEvents(dir, 'ak_a', 'u1', [fix(4, 2000, 5)], now).map((e) => e.geofence_id), [late.id]);
    assert.deepEqual(geofenceEvents(dir, 'ak_a', null, [fix(5, 5, 5)], now), [], 'anonymous: no history, so already inside is no entry');
    assert.deepEqual(geofenceEvents(dir, 'ak_a', null, [fix(6, 5, 5)], now), [], 'nor on the next request');
    assert.deepEqual(geofenceEvents(dir, 'ak_a', null, [fix(8, 5, 5), fix(7, 500, 5)], now).map((e) => e.type), ['entry'], 'a crossing within the request is');
  } finally {
    await store.close();
  }
});

test('dwell: once a stay at the first fix at or after entry + dwell; a straddling fix is no exit; a dwell set to 0 meanwhile raises none', () => {
  let dwell = 300;
  const v = { index: view().index, info: () => ({ tag: null, push_text: null, dwell, metadata: { k: 'v' } }) };
  const now = Date.now();
  const entered = evaluate(v, NO_PRESENCE, [fix(0, 500, 10), fix(1, 0, 10)], now);
  assert.deepEqual(entered.presence.dwell, { gf_casino: Date.parse(fix(1, 0).timestamp) });
  const straddling = evaluate(v, entered.presence, [fix(4, 90, 30)], now);
  assert.deepEqual(straddling.events, [], 'straddling the edge 3 minutes in: still inside, still counting');
  const dwelled = evaluate(v, straddling.presence, [fix(6, 0, 10), fix(7, 0, 10)], now);
  assert.deepEqual(dwelled.events.map((e) => [e.type, e.timestamp, e.metadata]), [['dwell', fix(6, 0).timestamp, { k: 'v' }]]);
  assert.equal(dwelled.presence.dwell, undefined, 'nothing left counting');
  assert.deepEqual(evaluate(v, dwelled.presence, [fix(30, 0, 10)], now).events, [], 'once a stay');
  // Re-entered, then the fence's dwell set to 0 before the count completes: no dwell for that stay.
  const back = evaluate(v, dwelled.presence, [fix(31, 500, 10), fix(32, 0, 10)], now);
  assert.deepEqual(back.events.map((e) => e.type), ['exit', 'entry']);
  dwell = 0;
  const zero = evaluate(v, back.presence, [fix(40, 0, 10)], now);
  assert.deepEqual(zero.events, []);
  assert.equal(zero.presence.dwell, undefined);
  // No user: a count started and completed within one request.
  dwell = 120;
  assert.deepEqual(evaluateAlone(v, [fix(0, 500, 10), fix(1, 0, 10), fix(2, 0, 10), fix(3, 0, 10)], now).map((e) => [e.type, e.timestamp]),
    [['entry', fix(1, 0).timestamp], ['dwell', fix(3, 0).timestamp]]);
});
