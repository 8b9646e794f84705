/**
 * Requests that reach the server together travel to the workers in batches (issue 44): with one
 * worker taking one batch at a time, requests sent at once while it works are gathered into the
 * next. Each is still answered on its own: a bad body among good ones is refused 400 by itself,
 * the good ones get their visits, and each user's next request sees what the batch stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startDwell } from '../helpers/server.js';
import { createApp, signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';

test('a bad body sent with good ones is answered alone; the good ones are detected and stored', async () => {
  const dwell = await startDwell({ DWELL_WORKERS: '1', DWELL_WORKER_TASKS: '1' });
  try {
    const app = await createApp(dwell.url);
    const good = (i: number) => ({ ...visitRequest(), request_id: `batch-${i}`, advertising_id: `ad-batch-${i}` });
    const bad = { ...good(99), events: 'not a list' };
    const bodies = [...Array.from({ length: 6 }, (_, i) => good(i)), bad, ...Array.from({ length: 6 }, (_, i) => good(i + 6))];
    const answers = await Promise.all(bodies.map((b) => signed(dwell.url, app, '/v1/detect', b)));
    answers.forEach((a, i) => {
      if (bodies[i] === bad) {
        assert.equal(a.status, 400, JSON.stringify(a.body));
        assert.equal(a.body.error.code, 'invalid_request');
      } else {
        assert.equal(a.status, 200, `request ${i}: ${JSON.stringify(a.body)}`);
        assert.equal(a.body.data[0].visit.place_id, 'n7278545181', `request ${i}`);
      }
    });
    // Each good request's record was committed with its batch: the user's visit a day later finds it.
    const nextDay = JSON.parse(JSON.stringify({ ...good(3), request_id: 'batch-3-next' }).replaceAll('2024-05-06', '2024-05-07'));
    const again = await signed(dwell.url, app, '/v1/detect', nextDay);
    assert.equal(again.status, 200);
    assert.equal(again.body.data[0].visit.place.first_visit_time, answers[3].body.data[0].visit.place.first_visit_time);
    assert.notEqual(again.body.data[0].visit.start_time, answers[3].body.data[0].visit.start_time);
  } finally {
    await dwell.stop();
    fs.rmSync(dwell.dataDir, { recursive: true, force: true });
  }
});
