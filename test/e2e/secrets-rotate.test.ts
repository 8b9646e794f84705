/**
 * Rotating the key of one server (embedded mode): `dwell secrets rotate-key` on the data
 * directory of a stopped server (refused with the wrong old key, and while a server runs on it),
 * and a restart with DWELL_SECRET_KEY_OLD beside the new key. Either way the new key alone then
 * serves every app, the previous secret in its grace period included, and the old key is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startDwell, tempDir } from '../helpers/server.js';
import { createApp, type TestApp } from '../helpers/client.js';
import { detectStatus, dwellCli, foundIn, newKey } from '../helpers/secrets.js';

const EMBEDDED = { DWELL_STATE: 'lmdb', DWELL_SECRET_GRACE_S: '600' };

/** A data directory sealed with `key`, holding a sync app (rotated once: two secrets) and a bucket app. */
async function sealedDir(key: string) {
  const dataDir = tempDir();
  const dwell = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: key });
  try {
    const sync = await createApp(dwell.url);
    const bucket = await createApp(dwell.url, { method: 'bucket', provider: 's3', bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'AKIAROTATE0001', secretAccessKey: 'rotate-test-secret-access-key' } });
    const res = await fetch(`${dwell.url}/admin/apps/${sync.app_key}/rotate-secret`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const rotated = { ...sync, app_secret: ((await res.json()) as { app_secret: string }).app_secret };
    return { dataDir, signers: [sync, rotated, bucket] as TestApp[], running: dwell };
  } catch (err) {
    await dwell.stop();
    throw err;
  }
}

async function servesEvery(dataDir: string, key: string, signers: TestApp[]) {
  const dwell = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: key });
  try {
    for (const app of signers) assert.ok([200, 202].includes(await detectStatus(dwell.url, app)), app.app_key);
  } finally {
    await dwell.stop();
  }
}

async function refusedWith(dataDir: string, key: string) {
  const err = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: key }).then((d) => d.stop().then(() => null), (e: Error) => e);
  assert.match(String(err?.message), /DWELL_SECRET_KEY is not the key/);
}

test('dwell secrets rotate-key re-seals a stopped server\'s data directory; the new key serves every app', async () => {
  const [oldKey, newK] = [newKey(), newKey()];
  const { dataDir, signers, running } = await sealedDir(oldKey);
  const busy = dwellCli(['secrets', 'rotate-key', '--data-dir', dataDir, '--old-key', oldKey, '--new-key', newK]);
  await running.stop();
  assert.notEqual(busy.code, 0, 'refused while a server runs on the directory');
  assert.match(busy.stderr, /in use by another dwell server/);

  const wrong = dwellCli(['secrets', 'rotate-key', '--data-dir', dataDir, '--old-key', newKey(), '--new-key', newK]);
  assert.notEqual(wrong.code, 0, 'refused with a wrong old key');
  assert.match(wrong.stderr, /--new-key \(nor --old-key\) is not the key/);

  const done = dwellCli(['secrets', 'rotate-key', '--data-dir', dataDir, '--old-key', oldKey, '--new-key', newK]);
  assert.equal(done.code, 0, done.stderr);
  assert.equal(JSON.parse(done.stdout).apps_resealed, 2);
  await refusedWith(dataDir, oldKey);
  await servesEvery(dataDir, newK, signers);
  assert.deepEqual(foundIn(dataDir, signers.map((a) => a.app_secret)), []);
});

test('a restart with DWELL_SECRET_KEY_OLD beside the new key rotates the key of one server', async () => {
  const [oldKey, newK] = [newKey(), newKey()];
  const { dataDir, signers, running } = await sealedDir(oldKey);
  await running.stop();
  const both = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: newK, DWELL_SECRET_KEY_OLD: oldKey });
  try {
    assert.ok(both.logs.some((l) => l.includes('secret key rotated')), 'the rotation is logged');
    for (const app of signers) assert.ok([200, 202].includes(await detectStatus(both.url, app)), app.app_key);
  } finally {
    await both.stop();
  }
  await refusedWith(dataDir, oldKey);
  await servesEvery(dataDir, newK, signers);
});
