/**
 * The pure step of visit feedback (contract §10) on a user's record: which venue the history
 * credits with the stay, its label among the past stays, and that the app's tables are taught
 * once per visit however often the user changes their answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addStay, emptyRecord, recordPlace, stayCentresOf, stayLabelsOf } from '../src/users/records.js';
import { rememberAnswered, type AnsweredVisit } from '../src/users/answered.js';
import { applyFeedback } from '../src/feedback/apply.js';

const T = Date.parse('2024-05-10T07:25:00Z');

/** A record with one confirmed visit answered X (Y second), as detection leaves it. */
function answered() {
  const rec = emptyRecord();
  const a: AnsweredVisit = { i: 'v1', s: T, la: 43_739_760, lo: 7_427_660, sg: 8, h: 31, d: 1500, o: 80, r: 'X', v: 'X' };
  rememberAnswered(rec, a);
  recordPlace(rec, 'X', 'v1', T);
  addStay(rec, 'v1', 43.73976, 7.42766, 8, T, [{ venue: { id: 'X' }, probability: 0.6 }, { venue: { id: 'Y' }, probability: 0.3 }]);
  return rec;
}

test('wrong_venue: the history credits the named venue, and the stay\'s label is it, certain', () => {
  const rec = answered();
  const out = applyFeedback(rec, 'v1', { type: 'wrong_venue', venue_id: 'Y' }, T + 1000);
  assert.deepEqual({ venue: out?.venueId, teach: out?.teach }, { venue: 'Y', teach: true });
  assert.equal(rec.h.X, undefined, 'X had no other visit');
  assert.equal(rec.h.Y.f, T);
  assert.deepEqual(stayLabelsOf(rec), ['Y', 1, '', 0]);
});

test('again: the latest feedback stands, and the tables are taught once', () => {
  const rec = answered();
  applyFeedback(rec, 'v1', { type: 'wrong_venue', venue_id: 'Y' }, T + 1000);
  const out = applyFeedback(rec, 'v1', { type: 'confirm' }, T + 2000);
  assert.deepEqual({ venue: out?.venueId, teach: out?.teach }, { venue: 'X', teach: false });
  assert.equal(rec.h.Y, undefined);
  assert.equal(rec.h.X.f, T);
  assert.deepEqual(stayLabelsOf(rec), ['X', 1, '', 0]);
  assert.deepEqual(rec.a?.[0].f, { k: 'confirm', at: T + 2000 });
});

test('not_a_stop takes the stay out of the history and the past stays; a visit not kept is null', () => {
  const rec = answered();
  const out = applyFeedback(rec, 'v1', { type: 'not_a_stop' }, T + 1000);
  assert.equal(out?.teach, false);
  assert.deepEqual(rec.h, {});
  assert.deepEqual(stayCentresOf(rec), []);
  assert.equal(applyFeedback(rec, 'v2', { type: 'confirm' }, T), null);
  // A later report of the same visit (a retried request) keeps what the user said.
  const again = rememberAnswered(rec, { i: 'v1', s: T, la: 43_739_760, lo: 7_427_660, sg: 8, h: 31, d: 1500, o: 80, r: 'X', v: 'X' });
  assert.equal(again.v, '', 'still no stop');
});
