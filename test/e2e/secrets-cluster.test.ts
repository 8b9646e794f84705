/**
 * Secrets at rest, cluster mode: nodes started together with a key seal a bucket written in clear
 * once between them (each record by one node); the NATS store then holds no secret or credential
 * in clear; two nodes with the same key verify the same signatures and sign postbacks alike; a
 * node with another key is refused. Then the key is rotated on the running cluster
 * (`dwell secrets rotate-key --state …`) under a bounded load, with no failed request, and the
 * nodes restarted with the new key alone serve every app.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ADMIN_TOKEN, CLI, startDwell, tempDir, waitReady, type Running } from '../helpers/server.js';
import { publishSample } from '../helpers/cluster.js';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { detectStatus, foundIn, freshVisit, newKey, signatureReceiver } from '../helpers/secrets.js';
import { until } from '../helpers/until.js';

const S3 = { accessKeyId: 'AKIACLUSTERCLEAR001', secretAccessKey: 'cluster-clear-s3-secret-access-key' };
const S3_SEALED = { accessKeyId: 'AKIACLUSTERSEALED01', secretAccessKey: 'cluster-sealed-s3-secret-access-key' };
const [K1, K2] = [newKey(), newKey()];
const dirs = [tempDir(), tempDir()];
let nats: NatsCluster;
let sink: Awaited<ReturnType<typeof signatureReceiver>>;
let apps: TestApp[] = [];
/** What was written while the cluster had its key: none of it may be in the NATS store's bytes. */
const sealedSecrets: string[] = [];

/** Node i of the cluster with these settings, ready. */
async function node(i: number, env: Record<string, string>): Promise<Running> {
  const n = await startDwell({ DWELL_STATE: nats.urls, DWELL_DATA_DIR: dirs[i], ...env }, { ready: false });
  await waitReady(n.url, 60_000);
  return n;
}

before(async () => {
  nats = await startNatsCluster(1);
  await publishSample(nats);
  sink = await signatureReceiver(() => apps[1].app_secret);
});
after(async () => {
  sink.close();
  await nats.stop();
});

test('nodes started together seal a clear bucket once; the bucket holds no secret in clear; nodes with the same key sign alike', async () => {
  const clear = await node(0, {});
  apps = [await createApp(clear.url), await createApp(clear.url, { method: 'postback', url: sink.url }),
    await createApp(clear.url, { method: 'bucket', provider: 's3', bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: S3 })];
  await clear.stop();

  const nodes = await Promise.all([node(0, { DWELL_SECRET_KEY: K1 }), node(1, { DWELL_SECRET_KEY: K1 })]);
  try {
    const sealedCounts = nodes.flatMap((n) => n.logs.filter((l) => l.includes('app secrets sealed')).map((l) => JSON.parse(l).apps as number));
    assert.equal(sealedCounts.reduce((a, b) => a + b, 0), apps.length, `each app sealed by one node: ${JSON.stringify(sealedCounts)}`);
    for (const n of nodes) for (const app of apps) { const r = await signed(n.url, app, "/v1/detect", freshVisit()); assert.ok([200, 202].includes(r.status), `${app.app_key} on ${n.url}: ${r.status} ${JSON.stringify(r.body)}`); }

    // A secret rotated on one node signs on the other.
    const res = await fetch(`${nodes[0].url}/admin/apps/${apps[0].app_key}/rotate-secret`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    apps[0] = { ...apps[0], app_secret: ((await res.json()) as { app_secret: string }).app_secret };
    const s3 = await createApp(nodes[1].url, { method: 'bucket', provider: 's3', bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: S3_SEALED });
    apps.push(s3);
    sealedSecrets.push(apps[0].app_secret, s3.app_secret, S3_SEALED.accessKeyId, S3_SEALED.secretAccessKey);
    await until('the new secret to sign on the other node', async () => (await detectStatus(nodes[1].url, apps[0])) === 200);

    // Postbacks, whichever node's delivery worker sends them, carry the app secret's signature.
    for (const n of nodes) assert.equal((await signed(n.url, apps[1], '/v1/detect', freshVisit())).status, 202);
    await until('postbacks', () => sink.results.length >= 2);
    assert.ok(sink.results.every(Boolean), `every postback signed with the app secret: ${JSON.stringify(sink.results)}`);
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }

  // The bucket's bytes, read with the NATS server stopped so that all is on disk (values written
  // in clear before the key may stay in JetStream's files: docs/operating.md says to rotate those), and
  // each node's local copy, which holds none of either.
  await nats.nodes[0].stop('SIGTERM');
  try {
    assert.deepEqual(foundIn(nats.nodes[0].storeDir, sealedSecrets), [], 'secrets or credentials in clear in the NATS store');
    const needles = [...sealedSecrets, ...apps.map((a) => a.app_secret), S3.accessKeyId, S3.secretAccessKey];
    assert.deepEqual(foundIn(nats.nodes[0].storeDir, apps.map((a) => a.app_key)).length, apps.length, 'the scan reads what the bucket holds');
    for (const d of dirs) assert.deepEqual(foundIn(d, needles), [], `secrets in clear in ${d}`);
  } finally {
    await nats.nodes[0].start();
  }

  const err = await node(0, { DWELL_SECRET_KEY: K2 }).then((n) => n.stop().then(() => null), (e: Error) => e);
  assert.match(String(err?.message), /DWELL_SECRET_KEY is not the key the app secrets in the cluster's dwell-apps bucket were sealed with/);
});

test('the key rotated on a running cluster under a bounded load: no failed request; the new key alone then serves every app', async () => {
  let nodes = await Promise.all([node(0, { DWELL_SECRET_KEY: K2, DWELL_SECRET_KEY_OLD: K1 }), node(1, { DWELL_SECRET_KEY: K2, DWELL_SECRET_KEY_OLD: K1 })]);
  try {
    assert.ok(nodes[0].logs.some((l) => l.includes('sealed with DWELL_SECRET_KEY_OLD')), 'a node with both keys keeps the cluster on the old one until told');
    // Two requests in flight at a time, alternating nodes and apps, until the rotation is done.
    const statuses: number[] = [];
    let running = true;
    const load = Array.from({ length: 2 }, async (_, w) => {
      for (let i = w; running; i += 2) statuses.push(await detectStatus(nodes[i % 2].url, apps[i % apps.length]));
    });
    const rotate = promisify(execFile)(process.execPath, [CLI, 'secrets', 'rotate-key', '--state', nats.urls, '--old-key', K1, '--new-key', K2]);
    // An app created while the keys change is sealed with one of them and serves after.
    apps.push(await createApp(nodes[0].url));
    const { stdout } = await rotate;
    assert.equal(JSON.parse(stdout).rotated, true);
    await until('requests after the rotation', () => statuses.length > 20);
    running = false;
    await Promise.all(load);
    assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 202), [], `failed requests among ${statuses.length}`);
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }

  nodes = await Promise.all([node(0, { DWELL_SECRET_KEY: K2 }), node(1, { DWELL_SECRET_KEY: K2 })]);
  try {
    for (const n of nodes) for (const app of apps) { const r = await signed(n.url, app, "/v1/detect", freshVisit()); assert.ok([200, 202].includes(r.status), `${app.app_key} on ${n.url}: ${r.status} ${JSON.stringify(r.body)}`); }
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
  const err = await node(0, { DWELL_SECRET_KEY: K1 }).then((n) => n.stop().then(() => null), (e: Error) => e);
  assert.match(String(err?.message), /DWELL_SECRET_KEY is not the key/, 'the old key alone is refused');
});
