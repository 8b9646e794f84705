/**
 * Rotating the key of one server (embedded mode): `dwell secrets rotate-key` on the data
 * directory of a stopped server (refused with the wrong old key, and while a server runs on it),
 * and a restart with DWELL_SECRET_KEY_OLD beside the new key. Either way the new key alone then
 * serves every app, the previous secret in its grace period included, and the old key is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { ADMIN_TOKEN, startDwell, tempDir } from '../helpers/server.js';
import { createApp, type TestApp } from '../helpers/client.js';
import { detectStatus, dwellCli, foundIn, newKey } from '../helpers/secrets.js';

const EMBEDDED = { DWELL_STATE: 'lmdb', DWELL_SECRET_GRACE_S: '600' };

/**
 * A data directory sealed with the old key, holding a sync app (rotated once: two secrets) and a
 * bucket app, written once (each server start costs seconds of CPU): `rotate-key` was run on it
 * while its server ran (`busy`), then the server stopped and the directory copied, one copy a test.
 */
const OLD_KEY = newKey();
let sealed: Promise<{ dirs: [string, string]; signers: TestApp[]; busy: ReturnType<typeof dwellCli>; busyKey: string }> | undefined;
const sealedDirs = () => (sealed ??= (async () => {
  const dataDir = tempDir();
  const dwell = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: OLD_KEY });
  let signers: TestApp[];
  const busyKey = newKey();
  let busy: ReturnType<typeof dwellCli>;
  try {
    const sync = await createApp(dwell.url);
    const bucket = await createApp(dwell.url, { method: 'bucket', provider: 's3', bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'AKIAROTATE0001', secretAccessKey: 'rotate-test-secret-access-key' } });
    const res = await fetch(`${dwell.url}/admin/apps/${sync.app_key}/rotate-secret`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const rotated = { ...sync, app_secret: ((await res.json()) as { app_secret: string }).app_secret };
    signers = [sync, rotated, bucket];
    busy = dwellCli(['secrets', 'rotate-key', '--data-dir', dataDir, '--old-key', OLD_KEY, '--new-key', busyKey]);
  } finally {
    await dwell.stop();
  }
  const copy = tempDir();
  cpSync(dataDir, copy, { recursive: true });
  return { dirs: [dataDir, copy] as [string, string], signers, busy, busyKey };
})());

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
  const { dirs: [dataDir], signers, busy, busyKey: newK } = await sealedDirs();
  assert.notEqual(busy.code, 0, 'refused while a server runs on the directory');
  assert.match(busy.stderr, /in use by another dwell server/);

  const wrong = dwellCli(['secrets', 'rotate-key', '--data-dir', dataDir, '--old-key', newKey(), '--new-key', newK]);
  assert.notEqual(wrong.code, 0, 'refused with a wrong old key');
  assert.match(wrong.stderr, /--new-key \(nor --old-key\) is not the key/);

  const done = dwellCli(['secrets', 'rotate-key', '--data-dir', dataDir, '--old-key', OLD_KEY, '--new-key', newK]);
  assert.equal(done.code, 0, done.stderr);
  assert.equal(JSON.parse(done.stdout).apps_resealed, 2);
  await refusedWith(dataDir, OLD_KEY);
  await servesEvery(dataDir, newK, signers);
  assert.deepEqual(foundIn(dataDir, signers.map((a) => a.app_secret)), []);
});

test('a restart with DWELL_SECRET_KEY_OLD beside the new key rotates the key of one server', async () => {
  const { dirs: [, dataDir], signers } = await sealedDirs();
  const newK = newKey();
  const both = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: newK, DWELL_SECRET_KEY_OLD: OLD_KEY });
  try {
    assert.ok(both.logs.some((l) => l.includes('secret key rotated')), 'the rotation is logged');
    for (const app of signers) assert.ok([200, 202].includes(await detectStatus(both.url, app)), app.app_key);
  } finally {
    await both.stop();
  }
  await refusedWith(dataDir, OLD_KEY);
  await servesEvery(dataDir, newK, signers);
});
