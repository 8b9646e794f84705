/**
 * A crash loses nothing (contract §3): an exporter process is killed with SIGKILL after it has
 * claimed triggers but before an upload, and again in the middle of an upload; a new process on
 * the same outbox exports every trigger at once: the claims were leases in memory, gone with the
 * process (the window of 60 s below would otherwise hold them for a minute and more).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Outbox } from '../../src/delivery/outbox.js';
import { tempDir } from '../helpers/server.js';
import { S3RVER_KEYS, bucketApp, listKeys, readObject, sampleTrigger, startS3, until, type LocalS3 } from '../bucket-helpers.js';

const HARNESS = fileURLToPath(new URL('../bucket-harness.js', import.meta.url));
let s3: LocalS3;
before(async () => {
  s3 = await startS3({ buckets: ['crash'] });
});
after(() => s3.close());

/** Runs the harness; `seen` fills with its stdout reports. */
function harness(opts: object): { proc: ChildProcess; seen: any[] } {
  const proc = spawn(process.execPath, ['--no-warnings', HARNESS], { env: { ...process.env, BUCKET_HARNESS: JSON.stringify(opts) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const seen: any[] = [];
  let buf = '';
  proc.stdout!.on('data', (c: Buffer) => {
    buf += c.toString();
    for (let nl: number; (nl = buf.indexOf('\n')) >= 0; buf = buf.slice(nl + 1)) seen.push(JSON.parse(buf.slice(0, nl)));
  });
  return { proc, seen };
}

const kill9 = (p: ChildProcess) => new Promise<void>((resolve) => {
  p.once('exit', () => resolve());
  p.kill('SIGKILL');
});

async function exportedIds(appKey: string): Promise<string[]> {
  const keys = (await listKeys(s3, 'crash')).filter((k) => k.includes(appKey + '-'));
  return (await Promise.all(keys.map((k) => readObject(s3, 'crash', k)))).flatMap((o) => o.lines.map((l) => l.data.id));
}

async function restartAndCheck(dataDir: string, appKey: string, n: number): Promise<void> {
  const app = bucketApp(appKey, { provider: 's3', bucket: 'crash', endpoint: s3.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS });
  const second = harness({ dataDir, app, windowMs: 300 });
  try {
    const ids = await until('every trigger in the bucket', async () => { const ids = await exportedIds(appKey); return new Set(ids).size === n && ids; }, 30_000, 200);
    assert.deepEqual([...new Set(ids)].sort(), Array.from({ length: n }, (_, i) => sampleTrigger(appKey, i).data.id));
    await until('the outbox empty', () => second.seen.some((m) => m.event?.outcome === 'ok' && m.pending === 0), 10_000);
  } finally {
    second.proc.kill('SIGTERM');
    await new Promise((r) => second.proc.once('exit', r));
  }
  const outbox = new Outbox(dataDir);
  assert.equal(outbox.depth(), 0, 'nothing pending, nothing dead');
  await outbox.close();
}

test('kill -9 after the claim, before the upload: a restart exports every trigger', async () => {
  const dataDir = tempDir('dwell-crash-');
  const appKey = 'ak_crash_held';
  const app = bucketApp(appKey, { provider: 's3', bucket: 'crash', endpoint: s3.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS });
  const first = harness({ dataDir, app, enqueue: 200, windowMs: 60_000 });
  await until('all 200 claimed and held', () => first.seen.some((m) => m.held === 200), 15_000, 20);
  await kill9(first.proc);
  assert.deepEqual(await exportedIds(appKey), [], 'nothing uploaded before the kill');
  await restartAndCheck(dataDir, appKey, 200);
});

test('kill -9 in the middle of an upload: a restart exports every trigger', async () => {
  const dataDir = tempDir('dwell-crash-');
  const appKey = 'ak_crash_upload';
  let uploading!: () => void;
  const started = new Promise<void>((r) => (uploading = r));
  // an endpoint that takes the upload and never answers: the process dies mid-request
  const hang = http.createServer((req) => {
    req.resume();
    uploading();
  });
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  try {
    const endpoint = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    const app = bucketApp(appKey, { provider: 's3', bucket: 'crash', endpoint, region: 'us-east-1', credentials: S3RVER_KEYS });
    const first = harness({ dataDir, app, enqueue: 150, windowMs: 200, uploadTimeoutMs: 60_000 });
    await started;
    await kill9(first.proc);
  } finally {
    hang.closeAllConnections();
    hang.close();
  }
  await restartAndCheck(dataDir, appKey, 150);
});
