import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completeAddress, estimateAddress, streetLine } from '../src/venues/address.js';

test('estimateAddress: New York, Brooklyn, Monaco, Paris', () => {
  assert.deepEqual(estimateAddress(40.754, -73.984), {
    city: 'New York', state: 'New York', country: 'United States', formatted_city: 'New York, NY', formatted_address: 'New York, NY',
  });
  assert.equal(estimateAddress(40.68, -73.95).formatted_city, 'Brooklyn, NY');
  const mc = estimateAddress(43.7396, 7.4275); // Place du Casino: Monaco, not Beausoleil (France) 500 m away
  assert.equal(mc.country, 'Monaco');
  assert.equal(mc.formatted_city, 'Monaco');
  assert.equal(estimateAddress(48.8566, 2.3522).city, 'Paris');
});

test('estimateAddress: nothing in the middle of the ocean', () => {
  assert.deepEqual(estimateAddress(-40, -120), {});
});

test('completeAddress: source fields win, estimate fills the rest', () => {
  const a = completeAddress({ street_address: '590 Avenue of the Americas', postal_code: '10011', city: 'New York' }, 40.7389, -73.9954);
  assert.equal(a.state, 'New York');
  assert.equal(a.country, 'United States');
  assert.equal(a.formatted_address, '590 Avenue of the Americas, New York, NY 10011');
  const m = completeAddress({ street_address: '30 Boulevard Princesse Charlotte', postal_code: '98000', city: 'Monaco', country: 'Monaco', country_code: 'MC' }, 43.7406, 7.4243);
  assert.equal(m.formatted_address, '30 Boulevard Princesse Charlotte, 98000 Monaco');
});

test('streetLine: house number position by country', () => {
  assert.equal(streetLine('7th Avenue', '30', 'US'), '30 7th Avenue');
  assert.equal(streetLine('Hauptstraße', '5', 'DE'), 'Hauptstraße 5');
  assert.equal(streetLine('Rue Grimaldi', undefined), 'Rue Grimaldi');
  assert.equal(streetLine(undefined, undefined), undefined);
});
