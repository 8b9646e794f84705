/**
 * Learned access-point places are cached per thread (src/learned/cache.ts) and must still
 * show what another worker thread taught, from that thread's next task on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { openUserStore } from '../src/users/store.js';
import { newVersions } from '../src/learned/cache.js';
import { tempDir } from './detect-helpers.js';

const APP = 'ak_cache', AP = '02:00:00:00:00:01', UNKNOWN = '02:00:00:00:00:02';

test('a place another worker teaches is read from the next task on, and unchanged places are not re-read', async () => {
  const dir = tempDir();
  const versions = newVersions();
  const users = openUserStore(dir, { versions });
  const other = new Worker(new URL('./helpers/learn-worker.js', import.meta.url), { workerData: { dir, versions: versions.buffer } });
  const teach = async (lat: number, lon: number) => { other.postMessage({ app: APP, bssid: AP, lat, lon }); await once(other, 'message'); };
  try {
    users.fresh();
    assert.deepEqual(users.apPlaces(APP, [AP, UNKNOWN]), [undefined, undefined], 'nothing taught yet');

    await teach(43.7, 7.4);
    users.fresh();
    // [Σw, Σw·lat, Σw·lon, stays], then the box of its stays (learned/shapes.ts ApPlace).
    assert.deepEqual(users.apPlaces(APP, [AP])[0]?.slice(0, 8), [1, 43.7, 7.4, 1, 43.7, 43.7, 7.4, 7.4], 'the first stay is seen at the next task');

    await teach(43.8, 7.5);
    users.fresh();
    const [p] = users.apPlaces(APP, [AP]);
    assert.equal(p?.[3], 2, `two stays taught, the cache answered ${JSON.stringify(p)}`);
    assert.ok(Math.abs(p![1] / p![0] - 43.75) < 1e-9 && Math.abs(p![2] / p![0] - 7.45) < 1e-9, 'the mean of both stays');

    // Nothing written since: the same object comes back (from the cache, not decoded again).
    users.fresh();
    assert.equal(users.apPlaces(APP, [AP])[0], users.apPlaces(APP, [AP])[0]);
    assert.deepEqual(users.apPlaces(APP, [UNKNOWN]), [undefined]);

    // This thread's own teaching is seen at once, in the same task.
    users.learn(APP, [{ bssid: UNKNOWN, at: [40, 8, 1] }]);
    assert.deepEqual(users.apPlaces(APP, [UNKNOWN])[0]?.slice(0, 4), [1, 40, 8, 1]);
  } finally {
    other.postMessage('close');
    await once(other, 'exit');
    users.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
