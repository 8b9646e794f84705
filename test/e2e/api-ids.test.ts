/**
 * Id lengths (contract §2): user_id, request_id and event_id are 1 to 256 characters,
 * advertising_id at most 256 (empty counts as absent). Characters are Unicode code points.
 * Longer is 400 invalid_request at the id's JSON Pointer, never a 500 from the store's key limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';

const dwell = dwellWithApp();

/**
 * The sample request with one id replaced (`event_id` is the first event's). A user_id comes
 * without the advertising_id, so that it is the user and keys the user's records.
 */
function withId(field: string, value: string) {
  const body = visitRequest();
  if (field === 'event_id') body.events[0].event_id = value;
  else body[field] = value;
  if (field === 'user_id') delete body.advertising_id;
  return body;
}
const pointer = (field: string) => (field === 'event_id' ? '/events/0/event_id' : `/${field}`);
const FIELDS = ['request_id', 'advertising_id', 'user_id', 'event_id'];
/** A G clef: one code point, two UTF-16 units, four bytes of UTF-8. */
const CLEF = '\u{1D11E}';

for (const field of FIELDS) {
  test(`${field}: 257 characters is 400 at ${pointer(field)}, 256 is accepted`, async () => {
    const long = await signed(dwell.url, dwell.app, '/v1/detect', withId(field, 'x'.repeat(257)));
    assert.equal(long.status, 400, JSON.stringify(long.body));
    assert.equal(long.body.error.code, 'invalid_request');
    assert.equal(long.body.error.path, pointer(field));
    assert.match(long.body.error.message, /at most 256 characters/);

    const max = await signed(dwell.url, dwell.app, '/v1/detect', withId(field, 'x'.repeat(256)));
    assert.equal(max.status, 200, JSON.stringify(max.body));
  });

  test(`${field}: 256 four-byte characters are accepted, 257 are not`, async () => {
    const max = await signed(dwell.url, dwell.app, '/v1/detect', withId(field, CLEF.repeat(256)));
    assert.equal(max.status, 200, JSON.stringify(max.body));
    assert.ok(max.body.data[0].visit.place, 'detected as usual');
    const long = await signed(dwell.url, dwell.app, '/v1/detect', withId(field, CLEF.repeat(257)));
    assert.equal(long.status, 400, JSON.stringify(long.body));
    assert.equal(long.body.error.path, pointer(field));
  });
}

test('an id far past the store\'s key limit is a 400, not a 500', async () => {
  for (const field of FIELDS) {
    const r = await signed(dwell.url, dwell.app, '/v1/detect', withId(field, 'y'.repeat(100_000)));
    assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body).slice(0, 300)}`);
    assert.equal(r.body.error.path, pointer(field));
  }
});

test('empty user_id, request_id or event_id is 400 at its path; empty advertising_id is accepted', async () => {
  for (const field of ['request_id', 'user_id', 'event_id']) {
    const r = await signed(dwell.url, dwell.app, '/v1/detect', withId(field, ''));
    assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.equal(r.body.error.path, pointer(field));
    assert.match(r.body.error.message, /1 to 256 characters/);
  }
  const r = await signed(dwell.url, dwell.app, '/v1/detect', withId('advertising_id', ''));
  assert.equal(r.status, 200, JSON.stringify(r.body));
});
