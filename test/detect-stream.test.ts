/**
 * Unstructured streams: a stay that spans two uploads and a restart (the user store closed and
 * reopened) is one visit with one id, reported when confirmed and again when it ends; a jump
 * of a few hundred metres does not end it, and a stop at a red light is no visit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { detectUnstructured } from '../src/detect/index.js';
import { openUserStore } from '../src/users/store.js';
import type { Signal } from '../src/schemas/detect-request.js';
import { M_PER_DEG, mPerDegLon } from '../src/geo/distance.js';
import { context } from './detect-helpers.js';
import { sdkStamp } from './helpers/stamps.js';

const POLPETTA = { lat: 43.7401641, lon: 7.4215278 };
const T0 = Date.parse('2024-05-06T10:00:00Z'); // arrival

function fix(ms: number, north: number, east: number, speed: number, accuracy = 12): Signal {
  return { timestamp: sdkStamp(ms, '+00:00'), location: { lat: POLPETTA.lat + north / M_PER_DEG, long: POLPETTA.lon + east / mPerDegLon(POLPETTA.lat), accuracy, speed } };
}
const min = (m: number) => T0 + m * 60_000;

/** Walking in from 400 m south, then staying, with one multipath jump at 10:06. */
function upload1(): Signal[] {
  const out: Signal[] = [];
  for (let s = -300; s < 0; s += 45) out.push(fix(T0 + s * 1000, (s / 300) * 400, 0, 1.3));
  for (let m = 1; m <= 14; m += 2) out.push(m === 7 ? fix(min(m), 250, 180, 0) : fix(min(m), (m % 3) * 4 - 4, (m % 5) * 3 - 6, 0.02));
  return out;
}
/** Still there until 10:30, then walking away east with a red-light stop of two minutes. */
function upload2(): Signal[] {
  const out: Signal[] = [];
  for (let m = 16; m <= 30; m += 2) out.push(fix(min(m), (m % 3) * 4 - 4, (m % 5) * 3 - 6, 0.01));
  let east = 0, t = min(31);
  for (let k = 0; k < 8; k++) { east += 60; out.push(fix(t, 0, east, 1.4)); t += 45_000; }
  out.push(fix(t, 0, east, 0)); t += 60_000; out.push(fix(t, 3, east, 0)); t += 60_000;
  for (let k = 0; k < 8; k++) { east += 60; out.push(fix(t, 0, east, 1.4)); t += 45_000; }
  return out;
}

test('a stay split across uploads and a restart is one visit, reported twice with one id', () => {
  const ctx = context('monaco-venues-cut.jsonl');
  const first = detectUnstructured({ advertising_id: 'ad-stream', data: upload1() }, ctx);
  ctx.users.close(); // restart: nothing of the open stay may live only in memory
  ctx.users = openUserStore(ctx.dataDir);
  const second = detectUnstructured({ advertising_id: 'ad-stream', data: upload2() }, ctx);
  ctx.users.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });

  assert.equal(first.length, 1, 'the stay is reported once it lasted 5 minutes');
  const open = first[0].visit;
  assert.equal(open.is_confirmed, true);
  assert.equal(open.end_time, undefined, 'still going at the end of the first upload');
  assert.ok(Math.abs(Date.parse(open.start_time) - T0) <= 3 * 60_000, `start ${open.start_time} within 3 min of arrival`);
  assert.equal(open.place_id, 'n8485736228', 'Polpetta');

  assert.equal(second.length, 1, 'the red-light stop is no visit');
  const ended = second[0].visit;
  assert.equal(ended.id, open.id);
  assert.equal(ended.start_time, open.start_time);
  assert.ok(ended.end_time, 'the visit has ended');
  assert.ok(Math.abs(Date.parse(ended.end_time!) - min(30.5)) <= 3 * 60_000, `end ${ended.end_time} within 3 min of departure`);
  assert.equal(ended.place_id, 'n8485736228');
});

test('an upload replayed after it was processed reports nothing new', () => {
  const ctx = context('monaco-venues-cut.jsonl');
  const data = upload1();
  assert.equal(detectUnstructured({ user_id: 'u-replay', data }, ctx).length, 1);
  assert.equal(detectUnstructured({ user_id: 'u-replay', data }, ctx).length, 0);
  ctx.users.close();
});

test('without a user id the request is its own stream and carries no history', () => {
  const ctx = context('monaco-venues-cut.jsonl');
  const items = detectUnstructured({ data: [...upload1(), ...upload2()] }, ctx);
  ctx.users.close();
  assert.equal(items.length, 1);
  assert.ok(items[0].visit.end_time);
  // No history: the visit is its own first and last (contract §2).
  const start = Date.parse(items[0].visit.start_time);
  assert.equal(Date.parse(items[0].visit.place!.first_visit_time!), start);
  assert.equal(Date.parse(items[0].visit.place!.last_visit_time!), start);
});

test('hours of silence end a stay even when the phone is back at the same place', () => {
  const ctx = context('monaco-venues-cut.jsonl');
  const data: Signal[] = [];
  for (let m = 0; m <= 30; m += 3) data.push(fix(min(m), (m % 3) * 2, (m % 5) * 2, 0));
  // No signal for three hours (gone, no transit recorded), then back for another half hour.
  for (let m = 210; m <= 240; m += 3) data.push(fix(min(m), (m % 3) * 2, (m % 5) * 2, 0));
  const items = detectUnstructured({ advertising_id: 'ad-silence', data }, ctx);
  ctx.users.close();
  fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  const ids = new Set(items.map((i) => i.visit.id));
  assert.equal(ids.size, 2, 'two visits, not one of four hours');
  const firstEnded = items.find((i) => i.visit.end_time)!.visit;
  assert.ok(Date.parse(firstEnded.end_time!) <= min(33), `the first ends near 10:30, not at ${firstEnded.end_time}`);
});
