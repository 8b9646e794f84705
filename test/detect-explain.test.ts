/**
 * Explain mode (issue 19): its factors reproduce the ranking's scores exactly, and it answers
 * what detection answers (same visits, same ranked order, same probabilities) while storing
 * nothing. The golden requests are explained against the same state a detection sees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { detectStructured, detectUnstructured, type DetectContext } from '../src/detect/index.js';
import { explainDetect, type Explanation } from '../src/detect/explain/explain.js';
import { openUserStore } from '../src/users/store.js';
import type { StructuredRequest } from '../src/schemas/detect-request.js';
import { context, fixture, tempDir } from './detect-helpers.js';
import { MemoryVenueStore } from './helpers/memory-venues.js';

const floorP = (p: number) => Math.floor(p * 1e4) / 1e4;
const golden = fs.readdirSync(fixture('in')).filter((f) => f.endsWith('.json')).sort()
  .map((f) => ({ file: f, ...(JSON.parse(fs.readFileSync(path.join(fixture('in'), f), 'utf8')) as { venues: string; request: StructuredRequest }) }));

/** What a reader of an explanation checks: factors sum to scores, scores give the probabilities, and it is the answer's ranking. */
function checkExplanation(e: Explanation): number {
  let checked = 0;
  e.data.forEach((item, k) => {
    const r = e.rankings[k];
    const place = item.visit.place;
    if (!place?.estimated_geolocation) { assert.equal(r, null); return; }
    assert.ok(r, 'a located visit has its ranking');
    assert.deepEqual(r.candidates.map((c) => c.id), (place.venues ?? []).map((v) => v.id), 'the answer\'s venues, in its order');
    r.candidates.forEach((c, i) => {
      assert.equal(floorP(c.probability), place.venues![i].probability, 'the answer\'s probability, before rounding');
      const sum = c.factors.reduce((s, f) => s + f.value, 0);
      assert.ok(Math.abs(sum - c.score) < 1e-9, `${c.id}: factors sum to ${sum}, score ${c.score}`);
      assert.ok(!c.factors.some((f) => f.factor === 'unnoted'), `every term is noted: ${JSON.stringify(c.factors)}`);
      for (const f of ['distance', 'hour_of_week', 'dwell']) assert.ok(c.factors.some((x) => x.factor === f), `${f} is among the factors`);
      // The softmax: a ratio of probabilities is exp of the score difference over the temperature.
      const vsNone = Math.log(c.probability / r.none.probability) * r.temperature;
      assert.ok(Math.abs(vsNone - (c.score - r.none.score)) < 1e-9, `${c.id}: probabilities follow the scores`);
      checked++;
    });
    const noneSum = r.none.factors.reduce((s, f) => s + f.value, 0);
    assert.ok(Math.abs(noneSum - r.none.score) < 1e-9);
  });
  return checked;
}

for (const g of golden) {
  test(`explain ${g.file}: the visits of detection, factors that add up to the scores`, () => {
    const a = context(g.venues), b = context(g.venues);
    const detected = detectStructured(g.request, a);
    const explained = explainDetect({ kind: 'structured', body: g.request }, b);
    assert.deepEqual(explained.data, detected, 'explain answers what detect answers');
    assert.ok(checkExplanation(explained) > 0);
    assert.equal(b.users.read(b.app.app_key, g.request.advertising_id!), undefined, 'explaining stored nothing for the user');
    // And detection after it answers as on a fresh store.
    assert.deepEqual(detectStructured(g.request, b), detected);
    a.users.close(); b.users.close();
  });
}

test('explain sees the user\'s history as the next detection does, and changes nothing', () => {
  const g = golden[0];
  const dir = tempDir();
  const venues = MemoryVenueStore.fromJsonl(fixture(g.venues));
  // A fresh store object per step: the in-memory learned counts of a thread are then all stored.
  const ctx = (): DetectContext => ({ ...context(g.venues, dir), venues });
  const first = ctx();
  detectStructured(g.request, first);
  first.users.close();
  const next = g.request.events.map((e, i) => ({ ...e, event_id: `again-${i}` }));
  const again = { ...g.request, events: next };
  const explained = explainDetect({ kind: 'structured', body: again }, ctx());
  const before = openUserStore(dir).read('test-app', g.request.advertising_id!);
  assert.ok(checkExplanation(explained) > 0);
  assert.ok(explained.rankings.some((r) => r?.candidates.some((c) => c.factors.some((f) => f.factor === 'history'))), 'history is a factor now');
  assert.deepEqual(openUserStore(dir).read('test-app', g.request.advertising_id!), before, 'the record is as it was');
  assert.deepEqual(explained.data, detectStructured(again, ctx()));
});

test('explain an unstructured stream: the same visits as detection', () => {
  const g = golden[0];
  const data = g.request.events.filter((e) => e.type === 'visit').flatMap((e) => e.data);
  const body = { user_id: 'stream-user', data };
  const a = context(g.venues), b = context(g.venues);
  const detected = detectUnstructured(body as never, a);
  const explained = explainDetect({ kind: 'unstructured', body: body as never }, b);
  assert.ok(detected.length > 0, 'the stream has visits');
  assert.deepEqual(explained.data, detected);
  assert.ok(checkExplanation(explained) > 0);
  assert.equal(b.users.read('test-app', 'stream-user'), undefined);
});
