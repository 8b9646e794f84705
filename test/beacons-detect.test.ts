/**
 * A golden detection with beacons: two shops 6 m apart on Rue de la Turbie (Monaco), a stay whose
 * fixes cannot tell them apart, and the registered beacon of one of them heard close. The beacon
 * decides; faint, it speaks for the neighbour; another app's registry and a request without
 * `beacon_scan` leave every answer as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectStructured } from '../src/detect/index.js';
import type { StructuredRequest } from '../src/schemas/detect-request.js';
import type { BeaconView, StoredBeacon } from '../src/schemas/beacon.js';
import { viewOf } from '../src/beacons/lookup.js';
import { context } from './detect-helpers.js';

const CLOTHES = 'n5765808355'; // Du Pareil au Même, 43.7328692, 7.4183457
const WINE = 'n5765826653'; // L'orangerie, 6.3 m to the north-west
const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
const OTHER_UUID = 'b9407f30-f5f8-466e-aff9-25556b57fe6d';

const at = '2024-05-06T10:00:00.000Z';
const record = (id: string, venue: string, minor: number, app = 'test-app', uuid = UUID): StoredBeacon =>
  ({ id, app_key: app, uuid, major: 7, minor, venue_id: venue, location: null, tag: null, created_at: at, updated_at: at });

/** Ten fixes a minute apart around the point between the two shops, 15 to 25 m accuracy. */
function request(scan?: (i: number) => Array<Record<string, unknown>>): StructuredRequest {
  const data = Array.from({ length: 10 }, (_, i) => ({
    timestamp: `2024-05-06T14:${String(10 + i).padStart(2, '0')}:00+02:00`,
    location: { lat: 43.73289 + ((i % 3) - 1) * 0.00004, long: 7.41832 + ((i % 4) - 1.5) * 0.00004, accuracy: 15 + (i % 3) * 5 },
    ...(scan ? { beacon_scan: scan(i) } : {}),
  }));
  return { advertising_id: 'ad-1', events: [{ event_id: 'e1', type: 'visit', start_time: data[0].timestamp, end_time: data[9].timestamp, data }] } as StructuredRequest;
}

function detect(req: StructuredRequest, beacons?: BeaconView) {
  const ctx = { ...context('../beacons/two-shops.jsonl'), beacons };
  const [item] = detectStructured(req, ctx);
  ctx.users.close();
  return item.visit.place!.venues!.map((v) => ({ id: v.id, p: v.probability }));
}

const heard = (minor: number, rssi: number) => () => [{ uuid: UUID.toUpperCase(), major: 7, minor, rssi, tx_power: -59, age: 200 }];

test('without beacons the two shops are a toss-up', () => {
  const venues = detect(request());
  const ids = venues.slice(0, 3).map((v) => v.id);
  assert.ok(ids.includes(CLOTHES) && ids.includes(WINE), JSON.stringify(venues.slice(0, 3)));
  assert.ok(venues[0].p < 0.7, `no venue is sure from the fixes alone: ${JSON.stringify(venues[0])}`);
});

test("a registered beacon heard close flips the answer to its shop, whichever it is", () => {
  const view = viewOf([record('bc_1', CLOTHES, 1), record('bc_2', WINE, 2)]);
  const toClothes = detect(request(heard(1, -78)), view);
  assert.equal(toClothes[0].id, CLOTHES);
  assert.ok(toClothes[0].p > 0.8, JSON.stringify(toClothes[0]));
  const toWine = detect(request(heard(2, -78)), view);
  assert.equal(toWine[0].id, WINE);
  assert.ok(toWine[0].p > 0.8, JSON.stringify(toWine[0]));
});

test('a ranging device that never heard a shop\'s own beacon was probably not in it', () => {
  const view = viewOf([record('bc_1', CLOTHES, 1)]);
  // Only another deployment's beacon is heard: the clothes shop's would have been.
  const venues = detect(request(() => [{ uuid: OTHER_UUID, major: 1, minor: 1, rssi: -70 }]), view);
  const without = detect(request());
  const p = (vs: typeof venues, id: string) => vs.find((v) => v.id === id)?.p ?? 0;
  assert.ok(p(venues, CLOTHES) < p(without, CLOTHES) / 5, `${p(venues, CLOTHES)} vs ${p(without, CLOTHES)}`);
});

test("another app's registry, or no beacon_scan at all, changes nothing", () => {
  const without = detect(request());
  // The worker hands detection the requesting app's view only: another app's beacons are not in it.
  const othersOnly = viewOf([]);
  assert.deepEqual(detect(request(heard(1, -65)), undefined), without);
  assert.deepEqual(detect(request(heard(1, -65)), othersOnly), without);
  // A registry that does not know the beacon heard, and a device that ranged nothing of the app: as without.
  const unrelated = viewOf([record('bc_9', 'n-elsewhere', 9)]);
  assert.deepEqual(detect(request(heard(1, -65)), unrelated), without);
  // A registry of this app, but a request without beacon_scan: as without.
  assert.deepEqual(detect(request(), viewOf([record('bc_1', CLOTHES, 1)])), without);
});
