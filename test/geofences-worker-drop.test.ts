/**
 * A detection worker keeps one fence index per app (geofences/worker.ts). When an app is deleted
 * its fences go with it, and no request for it comes again to refresh the index: the worker's
 * periodic check drops it, while the index of an app that still holds fences stays.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GeofenceStore } from '../src/geofences/store.js';
import { dropEmptyIndexes, fenceView } from '../src/geofences/worker.js';
import { tempDir } from './helpers/server.js';

const fence = { tag: null, location: { lat: 43.74, long: 7.43, radius: 100 }, ttl: 0, push_text: null };

test('the index of an app whose fences were all deleted is dropped from the worker; another app\'s stays', async () => {
  const dir = tempDir();
  const store = new GeofenceStore(dir);
  try {
    const gone = await Promise.all([store.create('ak_gone', fence), store.create('ak_gone', fence)]);
    await store.create('ak_kept', fence);
    const before = fenceView(dir, 'ak_gone');
    assert.equal(before?.index.size, 2);
    assert.equal(fenceView(dir, 'ak_kept')?.index.size, 1);
    assert.equal(dropEmptyIndexes(), 0, 'nothing changed: nothing dropped');
    for (const f of gone) await store.delete('ak_gone', f.id);
    assert.equal(dropEmptyIndexes(), 1);
    assert.equal(dropEmptyIndexes(), 0);
    assert.equal(fenceView(dir, 'ak_gone'), undefined);
    assert.equal(fenceView(dir, 'ak_kept')?.index.size, 1);
    assert.equal(fenceView(dir, 'ak_kept')?.index, fenceView(dir, 'ak_kept')?.index, 'the kept index is the same one');
  } finally {
    await store.close();
  }
});
