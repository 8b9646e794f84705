/**
 * Contract §2 `user_place` where the store has private homes (issue 45), over HTTP in both engines:
 * two homes share one point, as Foursquare snaps them; a stay ranked among them is home from the
 * first one, whichever of the two is answered; the café 38 m away is not home, for that user or
 * another; three nights at a hotel never make it home; the export shows the residential day. The
 * cluster runs two nodes on a NATS JetStream of this file's own, serving this file's store.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runImport } from '../../src/venues/import/build.js';
import { publishStore } from '../../src/venues/import/publish.js';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-server.js';
import { startDwell, tempDir, type Running } from '../helpers/server.js';
import { createApp, earlierEachTime, signed, type TestApp } from '../helpers/client.js';
import { fixes } from '../helpers/requests.js';
import { stampAfter } from '../helpers/stamps.js';

const HOMES = { lat: 40.7306, long: -73.9866 };
const CAFE = { lat: 40.7306, long: -73.98615 }; // 38 m east of the homes
const HOTEL = { lat: 40.7527, long: -73.9772 };
const venues = [
  { id: 'home-a', category: 'Home (private)', category_id: '4bf58dd8d48988d103941735', lat: HOMES.lat, lon: HOMES.long, checkins: 20 },
  { id: 'home-b', category: 'Home (private)', category_id: '4bf58dd8d48988d103941735', lat: HOMES.lat, lon: HOMES.long, checkins: 20 },
  { id: 'cafe', name: 'Corner Café', category: 'Café', category_id: '4bf58dd8d48988d16d941735', lat: CAFE.lat, lon: CAFE.long, checkins: 50 },
  { id: 'hotel', name: 'Midtown Hotel', category: 'Hotel', category_id: '4bf58dd8d48988d1fa931735', lat: HOTEL.lat, lon: HOTEL.long },
];

let nats: NatsCluster, embedded: Running, A: Running, B: Running;
before(async () => {
  const src = tempDir('dwell-homes-src-'), store = tempDir('dwell-homes-store-');
  const file = path.join(src, 'venues.jsonl');
  fs.writeFileSync(file, venues.map((v) => JSON.stringify(v)).join('\n') + '\n');
  await runImport({ format: 'jsonl', file, out: store, quiet: true });
  nats = await startNatsCluster(1);
  await publishStore(nats.urls.split(','), store, fs.readFileSync(path.join(store, 'CURRENT'), 'utf8').trim(), true);
  [embedded, A, B] = await Promise.all([startDwell({ DWELL_VENUES: store }), startDwell({ DWELL_STATE: nats.urls }), startDwell({ DWELL_STATE: nats.urls })]);
});
after(async () => { await Promise.all([embedded?.stop(), A?.stop(), B?.stop()]); await nats?.stop(); });

const stamp = earlierEachTime();
async function call(node: Running, app: TestApp, p: string, body?: unknown) {
  const r = await signed(node.url, app, p, body, { timestamp: stamp() });
  assert.equal(r.status, 200, `${p}: ${JSON.stringify(r.body)}`);
  return r.body;
}
const pad = (d: number) => String(d).padStart(2, '0');
/** A visit at `at` from hh:00 on 2024-05-<day> (-04:00) for `minutes`, fixes in its first 20 minutes. */
const stayAt = (ids: object, at: { lat: number; long: number }, day: number, hh: string, minutes: number) => {
  const start = `2024-05-${pad(day)}T${hh}:00:00-04:00`;
  return { ...ids, events: [{ event_id: `${hh}-${day}-${at.long}`, type: 'visit', start_time: start, end_time: stampAfter(start, minutes),
    data: fixes(at, `2024-05-${pad(day)}T${hh}`, [2, 7, 12, 17, 22], '-04:00') }] };
};
const placeOf = async (node: Running, app: TestApp, body: object) => {
  const visit = (await call(node, app, '/v1/detect', body)).data[0].visit;
  assert.equal(visit.event_type, 'visit');
  return { place: visit.place_id as string, is: visit.user_place as string | null };
};

for (const engine of ['embedded', 'cluster'] as const) {
  const node = (k: number) => (engine === 'embedded' ? embedded : k % 2 ? B : A);

  test(`${engine}: a stay among private homes is home from the first; the café downstairs and a hotel are not`, async () => {
    const app = await createApp(node(0).url);
    const ids = { advertising_id: `resident-${engine}` };
    const first = await placeOf(node(0), app, stayAt(ids, HOMES, 6, '13', 180));
    assert.ok(['home-a', 'home-b'].includes(first.place), first.place);
    assert.equal(first.is, 'home', 'the first afternoon ranked among the homes');
    const cafe = await placeOf(node(1), app, stayAt(ids, CAFE, 7, '12', 25));
    assert.equal(cafe.place, 'cafe');
    assert.equal(cafe.is, null, 'the café 38 m from home is not home');
    assert.equal((await placeOf(node(0), app, stayAt(ids, HOMES, 8, '18', 120))).is, 'home', 'an evening at home');
    assert.equal((await placeOf(node(1), app, stayAt({ advertising_id: `visitor-${engine}` }, CAFE, 7, '12', 25))).is, null, 'another user at the café');
    const traveller = { advertising_id: `traveller-${engine}` };
    const nights = [];
    for (const day of [6, 7, 8]) nights.push((await placeOf(node(day), app, stayAt(traveller, HOTEL, day, '21', 580))).is);
    assert.deepEqual(nights, [null, null, null], 'three nights at a hotel');
    const exported = await call(node(1), app, `/v2/apps/${app.app_key}/users/export?advertising_id=resident-${engine}`);
    const learned = exported.users[0].record.learned_places;
    assert.ok(Math.abs(learned.home.lat - HOMES.lat) < 1e-4 && Math.abs(learned.home.long - HOMES.long) < 1e-4, JSON.stringify(learned));
    assert.deepEqual(learned.places.find((p: { is: string | null }) => p.is === 'home').residential_days, ['2024-05-06', '2024-05-08']);
  });
}
