/**
 * Contract §1, replays: a signature accepted once is refused for as long as its timestamp is
 * fresh, also after the service restarts; reads (GET) change nothing and are never refused as
 * replays.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { startDwell, tempDir } from '../helpers/server.js';
import { createApp, signed, signHeaders } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';

const errorOf = (r: { status: number; body: any }) => [r.status, r.body?.error?.code];

for (const [how, signal] of [['a restart', undefined], ['a kill -9 just after its answer', 'SIGKILL']] as const) {
  test(`a captured detect request is refused as a replay after ${how} on the same data directory`, async () => {
    const dataDir = tempDir();
    try {
      let dwell = await startDwell({ DWELL_DATA_DIR: dataDir });
      const app = await createApp(dwell.url);
      const bytes = gzipSync(JSON.stringify(visitRequest()));
      const headers = { ...signHeaders(app, 'POST', '/v1/detect', bytes), 'content-type': 'application/json', 'content-encoding': 'gzip' };
      const send = async () => {
        const r = await fetch(dwell.url + '/v1/detect', { method: 'POST', headers, body: bytes });
        return { status: r.status, body: (await r.json()) as any };
      };
      assert.equal((await send()).status, 200);
      // Killed, the process had no chance to write anything after the answer: the claim was stored before it.
      const code = await dwell.stop(signal);
      if (!signal) assert.equal(code, 0);

      dwell = await startDwell({ DWELL_DATA_DIR: dataDir });
      try {
        assert.deepEqual(errorOf(await send()), [401, 'replayed_request'], 'the same signature, still fresh, after the restart');
        // Another body: signed within the same second as the first, the same body would be the same signature.
        assert.equal((await signed(dwell.url, app, '/v1/detect', { ...visitRequest(), request_id: 'after-restart' })).status, 200, 'a newly signed request is served');
      } finally {
        await dwell.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

test('the same signed GET twice in one second is answered twice', async () => {
  const dwell = await startDwell();
  try {
    const app = await createApp(dwell.url);
    const path = `/v2/apps/${app.app_key}/geofences`;
    const created = await signed(dwell.url, app, `${path}/create`, { location: { lat: 43.73976, long: 7.42766, radius: 150 }, ttl: 3600 });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const timestamp = Math.floor(Date.now() / 1000);
    const first = await signed(dwell.url, app, `${path}/${created.body}`, undefined, { timestamp });
    const second = await signed(dwell.url, app, `${path}/${created.body}`, undefined, { timestamp });
    assert.deepEqual([first.status, second.status], [200, 200], JSON.stringify(second.body));
    assert.deepEqual(second.body, first.body);
  } finally {
    await dwell.stop();
    rmSync(dwell.dataDir, { recursive: true, force: true });
  }
});
