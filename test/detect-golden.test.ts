/**
 * Golden cases of the pure core: fixture requests in, ranked venues out. Outputs are reviewed as
 * diffs. A missing golden file fails: regenerating is always on purpose, after `npm run build`:
 *   UPDATE_GOLDEN=1 node --test dist/test/detect-golden.test.js   (or: npm run golden:update)
 * then review `git diff test/fixtures/detect/out`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { detectStructured } from '../src/detect/index.js';
import type { StructuredRequest } from '../src/schemas/detect-request.js';
import { context, fixture } from './detect-helpers.js';

const inDir = fixture('in');
for (const file of fs.readdirSync(inDir).filter((f) => f.endsWith('.json')).sort()) {
  test(`golden: ${file}`, () => {
    const { venues, request } = JSON.parse(fs.readFileSync(path.join(inDir, file), 'utf8')) as { venues: string; request: StructuredRequest };
    const ctx = context(venues);
    const got = detectStructured(request, ctx);
    ctx.users.close();
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });

    // What a customer checks, whatever the golden file says.
    assert.equal(got.length, request.events.length);
    got.forEach((item, i) => {
      assert.equal(item.event_id, request.events[i].event_id);
      const place = item.visit.place;
      if (request.events[i].type === 'transit') { assert.equal(place, null); return; }
      assert.ok(place && place.venues && place.venues.length > 0, 'a visit in a venue-filled area names venues');
      const ps = place.venues.map((v) => v.probability);
      assert.ok(ps.every((p, k) => p >= 0 && p <= 1 && (k === 0 || ps[k - 1] >= p)), 'probabilities descend within [0, 1]');
      assert.ok(ps.reduce((a, b) => a + b, 0) <= 1 + 1e-9, 'probabilities sum to at most 1');
      assert.deepEqual(place.venue_info, place.venues[0]);
      assert.equal(place.id, item.visit.place_id);
      assert.equal(place.venues[0].id, place.id);
    });

    const goldenFile = path.join(fixture('out'), file);
    if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(goldenFile, JSON.stringify(got, null, 1) + '\n');
    assert.ok(fs.existsSync(goldenFile), `no golden output ${goldenFile} for ${file}; write it on purpose with UPDATE_GOLDEN=1 (npm run golden:update) and review it`);
    assert.deepEqual(got, JSON.parse(fs.readFileSync(goldenFile, 'utf8')), `differs from ${goldenFile}; UPDATE_GOLDEN=1 to accept`);
  });
}
