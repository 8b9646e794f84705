/**
 * Secrets at rest, embedded mode: with DWELL_SECRET_KEY (here from DWELL_SECRET_KEY_FILE) no app
 * secret, previous secret in its grace period or bucket credential is anywhere in the data
 * directory's bytes, and every one still signs; a data directory written without a key is sealed
 * on the first start with one (once, counted in the log) and its clear bytes are gone; a wrong
 * key, no key, or a malformed key is refused at start by name, before the server listens; a
 * backup holds them sealed too and is served again with its key only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, startDwell, tempDir, type Running } from '../helpers/server.js';
import { createApp } from '../helpers/client.js';
import { detectStatus, dwellCli, foundIn, newKey, signatureReceiver } from '../helpers/secrets.js';
import { until } from '../helpers/until.js';

const EMBEDDED = { DWELL_STATE: 'lmdb' };
const S3 = { accessKeyId: 'AKIASEALEDTESTKEYID1', secretAccessKey: 'sealed-test-s3-secret-access-key-value' };
const GCS_KEY = '-----BEGIN PRIVATE KEY-----\nsealed-test-gcs-private-key-body\n-----END PRIVATE KEY-----\n';

async function makeApps(url: string, hook: string) {
  const admin = (p: string, method: string) => fetch(url + p, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const sync = await createApp(url);
  const postback = await createApp(url, { method: 'postback', url: hook });
  const s3 = await createApp(url, { method: 'bucket', provider: 's3', bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: S3 });
  const gcs = await createApp(url, { method: 'bucket', provider: 'gcs', bucket: 'g', endpoint: 'http://127.0.0.1:9', credentials: { type: 'service_account', client_email: 'x@y.iam', private_key: GCS_KEY } });
  // A rotation keeps the previous secret for the grace period: both stored, both sealed.
  const rotated = { ...sync, app_secret: ((await (await admin(`/admin/apps/${sync.app_key}/rotate-secret`, 'POST')).json()) as { app_secret: string }).app_secret };
  return { apps: [sync, postback, s3, gcs], secrets: [sync.app_secret, rotated.app_secret, postback.app_secret, s3.app_secret, gcs.app_secret], rotated };
}

const CREDENTIALS = [S3.accessKeyId, S3.secretAccessKey, 'sealed-test-gcs-private-key-body'];

let sink: Awaited<ReturnType<typeof signatureReceiver>>;
let keyed: Promise<Awaited<ReturnType<typeof writeKeyed>>> | undefined;
before(async () => { sink = await signatureReceiver(() => made!.apps[1].app_secret); });
after(() => sink.close());
let made: Awaited<ReturnType<typeof makeApps>> | undefined;

/**
 * Written once and shared by three tests below, as each start of a server costs seconds of CPU: a
 * data directory written by a server started with a key (from DWELL_SECRET_KEY_FILE), holding
 * every kind of app secret and credential, and a backup of it taken while that server ran.
 * Refused starts leave it as it was; the first test alone serves it again.
 */
async function writeKeyed() {
  const dataDir = tempDir();
  const keyFile = path.join(tempDir(), 'key');
  const key = newKey();
  writeFileSync(keyFile, key + '\n');
  const env = { ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY_FILE: keyFile, DWELL_SECRET_GRACE_S: '600' };
  const dwell: Running = await startDwell(env);
  const backup = path.join(tempDir(), 'backup');
  try {
    const readyz = ((await (await fetch(dwell.url + '/readyz')).json()) as { checks: { secrets: string } }).checks.secrets;
    made = await makeApps(dwell.url, sink.url);
    return { dataDir, key, env, readyz, made, backup, backedUp: dwellCli(['backup', '--out', backup, '--data-dir', dataDir]) };
  } finally {
    await dwell.stop();
  }
}
const keyedDir = () => (keyed ??= writeKeyed());

test('a data directory written with a key holds no secret or credential in clear, and every secret signs', async () => {
  const { dataDir, env, readyz, made } = await keyedDir();
  assert.equal(readyz, 'sealed');
  assert.deepEqual(foundIn(dataDir, [...made.secrets, ...CREDENTIALS]), [], 'secrets or credentials in clear in the data directory');
  assert.deepEqual(foundIn(dataDir, made.apps.map((a) => a.app_key)), made.apps.map((a) => a.app_key), 'the scan reads what the stores hold');

  const dwell = await startDwell(env);
  try {
    for (const app of made.apps) assert.ok([200, 202].includes(await detectStatus(dwell.url, app)), app.app_key);
    assert.equal(await detectStatus(dwell.url, made.rotated), 200, 'the previous secret, in its grace period');
    // The delivery worker opens the sealed secret too: its postback signature holds.
    await until('a postback', () => sink.results.length > 0);
    assert.ok(sink.results.every(Boolean), 'every postback signed with the app secret');
  } finally {
    await dwell.stop();
  }
});

test('a data directory written without a key is sealed on the first start with one, once, and keeps serving', async () => {
  const dataDir = tempDir();
  let dwell = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir });
  const key = newKey();
  try {
    assert.ok(dwell.logs.some((l) => l.includes('"level":"warn"') && l.includes('DWELL_SECRET_KEY is not set')), 'a warning at start');
    assert.equal(((await (await fetch(dwell.url + '/readyz')).json()) as { checks: { secrets: string } }).checks.secrets, 'unsealed');
    const made = await makeApps(dwell.url, 'http://127.0.0.1:9/hook');
    await dwell.stop();
    assert.deepEqual(foundIn(dataDir, made.secrets), made.secrets, 'stored in clear without a key');

    dwell = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: key });
    const sealedLine = dwell.logs.find((l) => l.includes('app secrets sealed'));
    assert.ok(sealedLine, 'the sealing is logged');
    assert.equal(JSON.parse(sealedLine).apps, made.apps.length);
    for (const app of [...made.apps, made.rotated]) assert.ok([200, 202].includes(await detectStatus(dwell.url, app)), app.app_key);
    await dwell.stop();
    assert.deepEqual(foundIn(dataDir, [...made.secrets, ...CREDENTIALS]), [], 'no clear secret left in the data directory');

    dwell = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, DWELL_SECRET_KEY: key });
    assert.ok(!dwell.logs.some((l) => l.includes('app secrets sealed')), 'sealed once: nothing to seal at the next start');
    assert.equal(await detectStatus(dwell.url, made.apps[0]), 200);
  } finally {
    await dwell.stop();
  }
});

test('a wrong key, no key or a malformed key is refused at start, by name', async () => {
  const { dataDir, key } = await keyedDir();
  const refused = async (env: Record<string, string>, name: RegExp) => {
    const err = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: dataDir, ...env }).then((d) => d.stop().then(() => null), (e: Error) => e);
    assert.ok(err, `started with ${JSON.stringify(Object.keys(env))}`);
    assert.match(err.message, /dwell exited (with )?\(?[1-9]/);
    assert.match(err.message, name);
    assert.ok(!err.message.includes('"msg":"listening"'), 'refused before it listened');
    return err.message;
  };
  await refused({ DWELL_SECRET_KEY: newKey() }, /DWELL_SECRET_KEY is not the key/);
  await refused({}, /sealed: set DWELL_SECRET_KEY/);
  const malformed = key.slice(0, 30);
  const text = await refused({ DWELL_SECRET_KEY: malformed }, /setting DWELL_SECRET_KEY \(--secret-key\): expected 32 random bytes/);
  assert.ok(!text.includes(malformed), 'the message does not repeat the key');
});

test('a backup holds the secrets sealed (manifest included) and is served again with its key only', async () => {
  // The backup was taken while the server ran on the data directory.
  const { key, made, backup: out, backedUp } = await keyedDir();
  assert.equal(backedUp.code, 0, backedUp.stderr);
  assert.deepEqual(foundIn(out, [...made.secrets, ...CREDENTIALS, key]), [], 'secrets, credentials or the key in the backup');
  const restored = path.join(tempDir(), 'restored');
  const restore = dwellCli(['restore', out, '--data-dir', restored]);
  assert.equal(restore.code, 0, restore.stderr);
  const err = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: restored, DWELL_SECRET_KEY: newKey() }).then((d) => d.stop().then(() => null), (e: Error) => e);
  assert.match(String(err?.message), /DWELL_SECRET_KEY is not the key/);
  const again = await startDwell({ ...EMBEDDED, DWELL_DATA_DIR: restored, DWELL_SECRET_KEY: key });
  try {
    for (const app of [...made.apps, made.rotated]) assert.ok([200, 202].includes(await detectStatus(again.url, app)), app.app_key);
  } finally {
    await again.stop();
  }
});
