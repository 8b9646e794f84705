/**
 * The workers' warm-up requests (server/warm-up.ts, warm-up-request.ts) are ones the API
 * accepts, every detection of them succeeds (the pool logs failed ones and they warm only the
 * error path), they are never an app's, and the round on the real data directory carries no
 * identity and no network, so it leaves nothing there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { valueSymbol } from 'piscina';
import { loadStore, samplePositions } from '../src/venues/store.js';
import { warmUpTasks, WARM_UP_APP } from '../src/server/warm-up.js';
import { validateDetect } from '../src/schemas/validate-detect.js';
import type { DetectResult } from '../src/schemas/detect-outcome.js';
import { ROOT, tempDir } from './helpers/server.js';

const worker = await import('../workers/detect.js');
const unwrap = (a: unknown) => (a !== null && typeof a === 'object' && valueSymbol in a ? (a as Record<symbol, unknown>)[valueSymbol] : a) as DetectResult;
const now = Date.parse('2026-11-28T12:00:00Z');

test('warm-up requests pass validation and every detection of them succeeds, under the warm-up key', async () => {
  const store = await loadStore(path.join(ROOT, 'data', 'monaco'));
  const places = samplePositions(store, 1024);
  const dir = tempDir('dwell-warm-up-test-');
  try {
    const tasks = [...warmUpTasks(store, places, dir, 0, 150, true, now), ...warmUpTasks(store, places, dir, 0, 24, false, now)];
    const kinds = new Set<string>();
    for (const t of tasks) {
      assert.equal(t.app.app_key, WARM_UP_APP);
      kinds.add(validateDetect(JSON.parse(gunzipSync(t.body).toString()), now).kind);
      const r = unwrap(await worker.default(t));
      assert.ok(r.ok, `request ${JSON.parse(gunzipSync(t.body).toString()).request_id}: ${JSON.stringify(r)}`);
    }
    assert.deepEqual([...kinds].sort(), ['structured', 'unstructured']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the round on the real data directory is anonymous and hears no network', async () => {
  const places = [{ lat: 43.7397, lon: 7.4277, name: 'Casino de Monte-Carlo' }, { lat: 43.7307, lon: 7.4254, name: 'Musée Océanographique' }];
  for (const t of warmUpTasks({} as never, places, '/nowhere', 0, 48, false, now)) {
    const body = JSON.parse(gunzipSync(t.body).toString());
    assert.equal(body.advertising_id ?? body.user_id, undefined);
    const signals = body.events ? body.events.flatMap((e: { data: unknown[] }) => e.data) : body.data;
    for (const s of signals) assert.deepEqual(Object.keys(s), ['timestamp', 'location']);
  }
});
