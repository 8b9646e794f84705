/** Country entries and exits (contract §11), pure: a map of two countries and the sea between. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countriesAlone, evaluateCountries, type Countries } from '../src/regions/countries.js';
import { COUNTRIES } from '../src/regions/presence.js';
import type { Fix } from '../src/geofences/events.js';
import { stampAfter } from './helpers/stamps.js';

// West of 0: "AA"; east of 10: "BB"; between: the sea.
const map: Countries = { at: (_lat, long) => (long < 0 ? 'AA' : long > 10 ? 'BB' : undefined), name: (c) => `Land ${c}` };
const fix = (minute: number, long: number): Fix => ({ timestamp: stampAfter('2024-06-01T10:00:00+02:00', minute), lat: 0, long });
const types = (events: Array<{ type: string; code: string }>) => events.map((e) => `${e.type} ${e.code}`);

test('first position, crossings, the sea; late fixes are skipped', () => {
  const first = evaluateCountries(map, undefined, [fix(0, -1)]);
  assert.deepEqual(first.events, [{ type: 'entry', level: 'country', code: 'AA', name: 'Land AA', timestamp: fix(0, -1).timestamp, location: { lat: 0, long: -1 } }]);
  const across = evaluateCountries(map, first.presence, [fix(2, 11), fix(1, -2)]);
  assert.deepEqual(types(across.events), ['exit AA', 'entry BB']);
  assert.equal(across.events[0].timestamp, fix(2, 0).timestamp, 'both at the crossing position');
  assert.deepEqual(evaluateCountries(map, across.presence, [fix(1, -5)]).events, [], 'older than the last change: skipped');
  const sea = evaluateCountries(map, across.presence, [fix(3, 5), fix(4, 6)]);
  assert.deepEqual(types(sea.events), ['exit BB']);
  assert.deepEqual(types(evaluateCountries(map, sea.presence, [fix(5, 12)]).events), ['entry BB'], 'ashore again');
});

test('a user first seen at sea keeps nothing until land; no user: the crossings within the request', () => {
  const atSea = evaluateCountries(map, undefined, [fix(0, 5)]);
  assert.deepEqual([atSea.events, atSea.presence, atSea.changed], [[], undefined, false]);
  assert.deepEqual(types(evaluateCountries(map, undefined, [fix(0, 5), fix(1, -1)]).events), ['entry AA']);
  assert.deepEqual(countriesAlone(map, [fix(0, -1), fix(1, -2)]), [], 'where it starts is no entry');
  assert.deepEqual(types(countriesAlone(map, [fix(1, 11), fix(0, -1)])), ['exit AA', 'entry BB']);
});

test('the place database: Monaco, France, the sea', () => {
  assert.deepEqual([COUNTRIES.at(43.73976, 7.42766), COUNTRIES.at(43.7034, 7.2663), COUNTRIES.at(43.7, 7.5)], ['MC', 'FR', undefined]);
  assert.equal(COUNTRIES.name('MC'), 'Monaco');
});
