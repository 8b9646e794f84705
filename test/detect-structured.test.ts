/** Structured events: transit answers, and first/last visit times across a user's visits. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { detectStructured } from '../src/detect/index.js';
import type { StructuredRequest, Signal } from '../src/schemas/detect-request.js';
import { M_PER_DEG, mPerDegLon } from '../src/geo/distance.js';
import { context } from './detect-helpers.js';
import { sdkStamp } from './helpers/stamps.js';

// Polpetta, a restaurant of the Monaco fixture, among its neighbours.
const AT = { lat: 43.7401641, lon: 7.4215278 };

function fixes(startIso: string, minutes: number, every = 2): Signal[] {
  const t0 = Date.parse(startIso);
  const out: Signal[] = [];
  for (let m = 0; m < minutes; m += every) {
    const jitter = ((m * 7919) % 11) - 5; // metres, deterministic
    out.push({ timestamp: sdkStamp(t0 + m * 60_000),
      location: { lat: AT.lat + jitter / M_PER_DEG, long: AT.lon - jitter / mPerDegLon(AT.lat), accuracy: 12, speed: 0 } });
  }
  return out;
}
const visit = (id: string, start: string, minutes: number) => {
  const data = fixes(start, minutes);
  return { event_id: id, type: 'visit' as const, start_time: data[0].timestamp, end_time: sdkStamp(Date.parse(start) + minutes * 60_000), data };
};

test('a transit event answers as transit, with no place', () => {
  const ctx = context('monaco-venues-cut.jsonl');
  const body: StructuredRequest = { advertising_id: 'ad-1', events: [{ event_id: 't1', type: 'transit',
    start_time: '2024-05-06T10:00:00+02:00', end_time: '2024-05-06T10:10:00+02:00', data: fixes('2024-05-06T08:00:00Z', 10) }] };
  const [item] = detectStructured(body, ctx);
  ctx.users.close();
  assert.equal(item.event_id, 't1');
  assert.equal(item.visit.event_type, 'transit');
  assert.equal(item.visit.is_confirmed, false);
  assert.equal(item.visit.place_id, null);
  assert.equal(item.visit.place, null);
  assert.equal(item.visit.start_time, '2024-05-06T10:00:00+02:00');
});

test('first and last visit times over three visits to one place', () => {
  const ctx = context('monaco-venues-cut.jsonl');
  const starts = ['2024-05-06T11:00:00Z', '2024-05-08T11:30:00Z', '2024-05-10T12:00:00Z'];
  const got = starts.map((s, i) => detectStructured({ advertising_id: 'ad-2', events: [visit(`e${i}`, s, 40)] }, ctx)[0].visit);
  // A retried request must not count as a fourth visit.
  const again = detectStructured({ advertising_id: 'ad-2', events: [visit('e2', starts[2], 40)] }, ctx)[0].visit;
  ctx.users.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  const place = got[0].place_id;
  assert.ok(place, 'the visits name a place');
  assert.ok(got.every((v) => v.place_id === place), 'the same place each time');
  assert.ok(got.every((v) => v.is_confirmed), '40 minutes of still fixes is a confirmed visit');
  assert.equal(got[0].place!.first_visit_time, '2024-05-06T11:00:00Z');
  assert.equal(got[0].place!.last_visit_time, '2024-05-06T11:00:00Z', 'a first visit is its own last');
  assert.equal(got[1].place!.first_visit_time, '2024-05-06T11:00:00Z');
  assert.equal(got[1].place!.last_visit_time, '2024-05-06T11:00:00Z');
  assert.equal(got[2].place!.first_visit_time, '2024-05-06T11:00:00Z');
  assert.equal(got[2].place!.last_visit_time, '2024-05-08T11:30:00Z');
  assert.equal(again.id, got[2].id);
  assert.equal(again.place!.last_visit_time, '2024-05-08T11:30:00Z');
});

test('a short stop is reported but not confirmed', () => {
  const ctx = context('monaco-venues-cut.jsonl');
  const [item] = detectStructured({ user_id: 'u-3', events: [visit('short', '2024-05-06T11:00:00Z', 3)] }, ctx);
  ctx.users.close();
  assert.equal(item.visit.is_confirmed, false);
  assert.ok(item.visit.end_time);
});
