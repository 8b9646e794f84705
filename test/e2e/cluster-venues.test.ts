/**
 * Cluster mode, venues (contract §8): `dwell import … --publish <NATS URLs>` makes a store
 * available to every node; a node in cluster mode is not ready until it has fetched one, serves
 * it once it has, and switches to a newly published one without a restart; started with a store
 * of its own as well (`--venues`), it refuses to start and names `dwell import … --publish`. Real `dwell`
 * processes and a real nats-server started here.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI, ROOT, serveRefusal, startDwell, tempDir, type Running } from '../helpers/server.js';
import { createApp, signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

const pbf = fileURLToPath(new URL('../../../data/monaco-latest.osm.pbf', import.meta.url));

/** `dwell import <file> --format F --out DIR --publish URLS`, as an operator runs it: its JSON report. */
function importAndPublish(file: string, format: string, urls: string): Promise<{ version: string; venues: number; published: { version: string } }> {
  const out = tempDir('dwell-import-');
  const p = spawn(process.execPath, [CLI, 'import', file, '--format', format, '--out', out, '--publish', urls, '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (c: Buffer) => (stdout += c));
  p.stderr!.on('data', (c: Buffer) => (stderr += c));
  return new Promise((resolve, reject) => p.once('exit', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`import exited ${code}: ${stderr}`)))));
}

const readyz = async (n: Running) => {
  const r = await fetch(n.url + '/readyz');
  return { status: r.status, body: await r.json() as { store?: string; venues?: number; checks: { venue_store: string } } };
};

let nats: NatsCluster;
let node: Running;
before(async () => {
  nats = await startNatsCluster(1);
  node = await startDwell({ DWELL_STATE: nats.urls, DWELL_STORE_POLL_MS: '200' }, { ready: false });
});
after(async () => {
  await node?.stop();
  await nats.stop();
});

test('a new node is not ready until a store is published; then it serves it, and switches to the next one without a restart', async () => {
  await until('the node answers /readyz', () => readyz(node).then((r) => r, () => undefined), 120_000);
  const waiting = await readyz(node);
  assert.equal(waiting.status, 503);
  assert.equal(waiting.body.checks.venue_store, 'loading', 'no snapshot published yet: not ready');

  const first = await importAndPublish(pbf, 'osm', nats.urls);
  assert.equal(first.published.version, first.version);
  await until('the node serves the published store', async () => (await readyz(node)).body.store === first.version, 120_000);
  const ready = await readyz(node);
  assert.equal(ready.status, 200);
  assert.equal(ready.body.venues, first.venues);
  const app = await createApp(node.url, { method: 'sync' });
  const r = await signed(node.url, app, '/v1/detect', visitRequest());
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(typeof r.body.data[0].visit.place_id, 'string', 'a venue of the published store');

  const small = join(tempDir(), 'small.jsonl');
  writeFileSync(small, Array.from({ length: 5 }, (_, i) => JSON.stringify({ id: `s${i}`, name: `Venue ${i}`, category: 'Café', lat: 40.7 + i / 1000, lon: -74, popularity: 1 })).join('\n') + '\n');
  const second = await importAndPublish(small, 'jsonl', nats.urls);
  await until('the node switches to the newer store', async () => (await readyz(node)).body.store === second.version, 120_000);
  const now = await readyz(node);
  assert.equal(now.status, 200);
  assert.equal(now.body.venues, 5);
  assert.equal(node.proc.exitCode, null, 'the same process: no restart');
});

test('a node given a venue store of its own as well as the cluster refuses to start, naming dwell import … --publish', async () => {
  for (const [args, env] of [[['--venues', join(ROOT, 'data', 'monaco')], {}], [[], { DWELL_VENUES: join(ROOT, 'data', 'monaco') }]] as const) {
    // Listening means it started: stopped at once, and the test fails on its exit code below.
    const { code, output: stderr } = await serveRefusal({
      args: ['--state', nats.urls, ...args],
      env: { ...process.env, PORT: '0', DWELL_HOST: '127.0.0.1', DWELL_DATA_DIR: tempDir(), DWELL_ADMIN_TOKEN: 'x', ...env },
    });
    assert.notEqual(code, 0, stderr);
    assert.match(stderr, /DWELL_VENUES \(--venues\)/);
    assert.match(stderr, /dwell import .* --publish/);
    assert.doesNotMatch(stderr, /"msg":"listening"/);
  }
});
