/**
 * Contract §9's `beacon_scan` in a detection request, field by field and limit by limit, and the
 * registry's create and update bodies: a bad value is a 400 `invalid_request` naming its path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDetect } from '../src/schemas/validate-detect.js';
import { validateCreate, validateUpdate } from '../src/beacons/validate.js';
import { DwellError } from '../src/errors.js';

const NOW = Date.parse('2024-05-06T12:00:00Z');
const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
const entry = (over: Record<string, unknown> = {}) => ({ uuid: UUID, major: 1, minor: 2, rssi: -60, tx_power: -59, age: 100, ...over });
const request = (scan: unknown, extra: Record<string, unknown> = {}) => ({
  data: [{ timestamp: '2024-05-06T11:00:00Z', beacon_scan: scan, ...extra }],
});

function refused(body: unknown, path: string, message?: RegExp): void {
  assert.throws(() => validateDetect(body, NOW), (e: unknown) => {
    assert.ok(e instanceof DwellError);
    assert.equal(e.status, 400);
    assert.equal(e.code, 'invalid_request');
    assert.equal(e.path, path);
    if (message) assert.match(e.message, message);
    return true;
  });
}

test('a well-formed beacon_scan is accepted, alone or beside a location; uuid in either case', () => {
  validateDetect(request([entry(), entry({ uuid: UUID.toUpperCase(), tx_power: undefined, age: undefined })]), NOW);
  validateDetect(request([entry({ rssi: 0, tx_power: 20, major: 65535, minor: 0, age: 0 })], { location: { lat: 1, long: 2 } }), NOW);
  validateDetect(request([entry({ rssi: -127, tx_power: -127 })]), NOW);
  validateDetect({ events: [{ event_id: 'e', type: 'visit', start_time: '2024-05-06T11:00:00Z', end_time: '2024-05-06T11:10:00Z', data: request([entry()]).data }] }, NOW);
});

test('a signal with only an empty beacon_scan still carries one of the four', () => {
  validateDetect(request([]), NOW);
  refused({ data: [{ timestamp: '2024-05-06T11:00:00Z' }] }, '/data/0', /beacon_scan/);
});

test('every field of a scan entry, at its limits', () => {
  const at = (f: string) => `/data/0/beacon_scan/0/${f}`;
  const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
    [{ uuid: 'f7826da64fa24e988024bc5b71e0893e' }, at('uuid'), /UUID of 36 characters/],
    [{ uuid: 'g7826da6-4fa2-4e98-8024-bc5b71e0893e' }, at('uuid'), /8-4-4-4-12/],
    [{ uuid: UUID + '0' }, at('uuid')],
    [{ uuid: 7 }, at('uuid')],
    [{ uuid: undefined }, at('uuid')],
    [{ major: -1 }, at('major')], [{ major: 65536 }, at('major')], [{ major: 1.5 }, at('major')], [{ major: '1' }, at('major')],
    [{ major: undefined }, at('major')],
    [{ minor: -1 }, at('minor')], [{ minor: 65536 }, at('minor')], [{ minor: 2.5 }, at('minor')],
    [{ minor: undefined }, at('minor')],
    [{ rssi: 1 }, at('rssi')], [{ rssi: -128 }, at('rssi')], [{ rssi: -60.5 }, at('rssi')],
    [{ rssi: undefined }, at('rssi')],
    [{ tx_power: 21 }, at('tx_power')], [{ tx_power: -128 }, at('tx_power')], [{ tx_power: -59.5 }, at('tx_power')],
    [{ age: -1 }, at('age')], [{ age: 1.5 }, at('age')],
  ];
  for (const [over, path, message] of cases) refused(request([entry(over)]), path, message);
});

test('at most 100 entries a scan; beacon_scan is an array', () => {
  validateDetect(request(Array.from({ length: 100 }, (_, i) => entry({ minor: i }))), NOW);
  refused(request(Array.from({ length: 101 }, (_, i) => entry({ minor: i }))), '/data/0/beacon_scan');
  refused(request({ uuid: UUID }), '/data/0/beacon_scan');
});

const bodyError = (f: () => unknown, path: string): void => {
  assert.throws(f, (e: unknown) => e instanceof DwellError && e.code === 'invalid_request' && e.path === path);
};

test('registry create: uuid/major/minor required, a venue or a location, uuid lower-cased', () => {
  assert.deepEqual(validateCreate({ uuid: UUID.toUpperCase(), major: 1, minor: 2, venue_id: 'n1' }),
    { uuid: UUID, major: 1, minor: 2, venue_id: 'n1', location: null, tag: null });
  assert.deepEqual(validateCreate({ uuid: UUID, major: 0, minor: 65535, location: { lat: 43.7, long: 7.4, extra: 1 }, tag: 'door', venue_id: '' }),
    { uuid: UUID, major: 0, minor: 65535, venue_id: null, location: { lat: 43.7, long: 7.4 }, tag: 'door' });
  bodyError(() => validateCreate({ uuid: UUID, major: 1, minor: 2 }), '');
  bodyError(() => validateCreate({ uuid: UUID, major: 1, minor: 2, venue_id: null, location: null }), '');
  bodyError(() => validateCreate({ uuid: 'x', major: 1, minor: 2, venue_id: 'n1' }), '/uuid');
  bodyError(() => validateCreate({ uuid: UUID, major: 70000, minor: 2, venue_id: 'n1' }), '/major');
  bodyError(() => validateCreate({ uuid: UUID, major: 1, venue_id: 'n1' }), '/minor');
  bodyError(() => validateCreate({ uuid: UUID, major: 1, minor: 2, location: { lat: 91, long: 0 } }), '/location/lat');
  bodyError(() => validateCreate({ uuid: UUID, major: 1, minor: 2, location: [1, 2] }), '/location');
  bodyError(() => validateCreate({ uuid: UUID, major: 1, minor: 2, venue_id: 'n1', tag: 'x'.repeat(257) }), '/tag');
  // Not an object at all: contract §5's invalid_json, saying what arrived.
  assert.throws(() => validateCreate([]), (e: unknown) => e instanceof DwellError && e.code === 'invalid_json' && /got an array/.test(e.message));
});

test('registry update: absent keeps, blank deletes an optional field, blank identity is refused', () => {
  assert.deepEqual(validateUpdate({}), {});
  assert.deepEqual(validateUpdate({ tag: '', venue_id: null, location: '' }), { tag: null, venue_id: null, location: null });
  assert.deepEqual(validateUpdate({ uuid: UUID.toUpperCase(), minor: 3 }), { uuid: UUID, minor: 3 });
  for (const f of ['uuid', 'major', 'minor']) {
    bodyError(() => validateUpdate({ [f]: null }), `/${f}`);
    bodyError(() => validateUpdate({ [f]: '' }), `/${f}`);
  }
  bodyError(() => validateUpdate({ major: -1 }), '/major');
});
