/**
 * Detections spread over the workers (issue 21): at part load every worker is idle when a
 * request arrives, and Piscina's own balancer then always chose the first, so one worker did
 * most of the work (and most of the garbage collection) while the other stayed cold. Requests
 * sent one after another must alternate; /metrics says how many each worker took.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ADMIN_TOKEN, startDwell } from '../helpers/server.js';
import { createApp, signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { parseExposition } from '../helpers/prom-text.js';

async function tasksPerWorker(url: string): Promise<Map<string, number>> {
  const res = await fetch(url + '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(res.status, 200);
  const out = new Map<string, number>();
  for (const s of parseExposition(await res.text()).samples) if (s.name === 'dwell_detect_worker_tasks') out.set(s.labels.worker, s.value);
  return out;
}

test('detections sent one at a time take the two workers in turn', async () => {
  const dwell = await startDwell({ DWELL_WORKERS: '2', DWELL_WARM_UP: 'on' });
  try {
    const app = await createApp(dwell.url);
    const before = await tasksPerWorker(dwell.url);
    assert.deepEqual([...before.keys()].sort(), ['w1', 'w2'], 'both workers took warm-up detections');
    const n = 20;
    for (let i = 0; i < n; i++) {
      const body = { ...visitRequest(), request_id: `balance-${i}`, advertising_id: `ad-balance-${i}` };
      assert.equal((await signed(dwell.url, app, '/v1/detect', body)).status, 200);
    }
    const after = await tasksPerWorker(dwell.url);
    const took = ['w1', 'w2'].map((w) => (after.get(w) ?? 0) - (before.get(w) ?? 0));
    assert.equal(took[0] + took[1], n, `every detection counted once: ${took}`);
    assert.ok(Math.abs(took[0] - took[1]) <= 1, `one at a time, the workers alternate: w1 took ${took[0]}, w2 ${took[1]}`);
  } finally {
    await dwell.stop();
    fs.rmSync(dwell.dataDir, { recursive: true, force: true });
  }
});
