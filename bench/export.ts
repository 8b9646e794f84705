/**
 * Bucket export benchmark (`node dist/bench/export.js [--triggers 300000] [--rate 2000] [--seconds 60] [--window-ms 30000] [--no-doc]`).
 *
 * Loopback only: s3rver in a child process, the BucketExporter in a worker thread (as in the
 * delivery worker) on a real LMDB outbox, and this thread enqueueing ~1.2 KB trigger responses
 * two per call (as a request does before its 202) while a watcher lists the bucket every 250 ms
 * and reads each new object back, so each trigger's latency is 202 → first listed.
 *
 * 1. Drain: `--triggers` queued first (4 apps), then the exporter starts. Export rate = triggers
 *    in batches closed by the 5 MB cap / time from its start to the last such object listed.
 * 2. Concurrent: the same, enqueued as fast as the outbox takes them while the exporter runs
 *    (both share the 2 cores). Export rate as above, from the first enqueue.
 * 3. Latency: `--rate` triggers/s for `--seconds` with the default 30 s window; p50/p99/max.
 *
 * The exporter thread's own CPU per exported trigger (Linux schedstat) is reported as well: on a
 * shared machine it moves far less than the rates do.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { gunzip as gunzipCb } from 'node:zlib';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Outbox } from '../src/delivery/outbox.js';
import { BucketExporter } from '../src/delivery/bucket/exporter.js';
import { S3RVER_KEYS, bucketApp, sampleTrigger } from '../src/devkit/s3-bucket.js';
import { Samples } from './lib/stats.js';
import { markdownTable, fmtInt, fmtMs } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { benchFlags } from '../src/devkit/flags.js';

const flag = benchFlags({ triggers: 'string', rate: 'string', seconds: 'string', 'window-ms': 'string', 'no-doc': 'boolean' },
  'node dist/bench/export.js [--triggers 300000] [--rate 2000] [--seconds 60] [--window-ms 30000] [--no-doc]');

const gunzip = promisify(gunzipCb);
const APPS = ['ak_bench0', 'ak_bench1', 'ak_bench2', 'ak_bench3'];
interface Init { dataDir: string; endpoint: string; bucket: string; windowMs: number }

if (!isMainThread) {
  // The exporter's thread: what workers/delivery.ts runs, without the postback sender.
  const init = workerData as Init;
  const outbox = new Outbox(init.dataDir);
  const apps = new Map(APPS.map((k) => [k, bucketApp(k, { provider: 's3', bucket: init.bucket, endpoint: init.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS })]));
  const exporter = new BucketExporter({ outbox, appSettings: (k) => apps.get(k), windowMs: init.windowMs });
  // This thread's CPU (Linux): the exporter's own cost per trigger, apart from the enqueueing,
  // the watcher and whatever else shares the machine.
  const threadCpuS = () => { try { return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e9; } catch { return NaN; } };
  let cpu0 = threadCpuS();
  parentPort!.on('message', async (m: string) => {
    if (m === 'start') {
      cpu0 = threadCpuS();
      return exporter.start();
    }
    if (m === 'wake') return exporter.wake();
    await exporter.stop();
    await outbox.close();
    parentPort!.postMessage({ cpuS: threadCpuS() - cpu0 });
  });
} else {
  await main();
}

async function main(): Promise<void> {
  const deadline = Date.now() + 600_000; // the whole run is bounded
  const root = mkdtempSync(path.join(tmpdir(), 'dwell-bench-export-'));
  const s3 = await startS3rverChild(path.join(root, 's3'));
  const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: S3RVER_KEYS });
  const rows: string[][] = [];
  const windowMs = flag.num('window-ms', 30_000);
  const row = (label: string, total: number, r: Awaited<ReturnType<typeof phase>>, latency = true) => rows.push([
    label, fmtInt(total), fmtInt(r.enqueueRate), fmtInt(r.exportRate),
    latency ? fmtMs(r.lat.p50) : '–', latency ? fmtMs(r.lat.p99) : '–', latency ? fmtMs(r.lat.max) : '–', String(r.objects), fmtInt(r.lost), r.cpuUs.toFixed(1)]);
  try {
    const n = flag.num('triggers', 300_000);
    row('drain: queued first, then exported', n, await phase(client, s3.endpoint, path.join(root, 'drain'), { name: 'drain', total: n, rate: Infinity, windowMs, deadline, base: 0, prefill: true }), false);
    row('concurrent: enqueue flat out while exporting', n, await phase(client, s3.endpoint, path.join(root, 'burst'), { name: 'burst', total: n, rate: Infinity, windowMs, deadline, base: 500_000_000 }));
    const rate = flag.num('rate', 2_000);
    const total = rate * flag.num('seconds', 60);
    row(`latency: ${fmtInt(rate)}/s, ${fmtInt(windowMs / 1000)} s window`, total, await phase(client, s3.endpoint, path.join(root, 'steady'), { name: 'steady', total, rate, windowMs, deadline, base: 1_000_000_000 }));
  } finally {
    client.destroy();
    s3.close();
    rmSync(root, { recursive: true, force: true });
  }
  const report = markdownTable(
    ['phase', 'triggers', 'enqueued/s', 'exported/s', 'p50 202→listed ms', 'p99 ms', 'max ms', 'objects', 'missing', 'exporter thread CPU µs/trigger'],
    rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'])
    + `\n\nTargets: exported ≥ 20,000 triggers/s; p99 ≤ 35,000 ms with the 30 s window. Node ${process.version}, loopback s3rver.`;
  console.log(report);
  writePerformanceSection('export', report);
}

/** `base`: first trigger number, so ids differ between phases; `prefill`: queue everything before the exporter starts. */
interface PhaseOpts { name: string; total: number; rate: number; windowMs: number; deadline: number; base: number; prefill?: boolean }

async function phase(client: S3Client, endpoint: string, dataDir: string, o: PhaseOpts) {
  const outbox = new Outbox(dataDir);
  const BUCKET = o.name;
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const worker = new Worker(new URL(import.meta.url), { workerData: { dataDir, endpoint, bucket: BUCKET, windowMs: o.windowMs } satisfies Init });
  if (!o.prefill) worker.postMessage('start');
  const enqueuedAt = new Float64Array(o.total).fill(NaN);
  const lat = new Samples();
  const seen = new Set<string>();
  let listed = 0;
  let fullListed = 0;
  let lastFullAt = 0;
  let t0 = performance.now();
  const base = o.base;

  const watch = async () => {
    while (listed < o.total && Date.now() < o.deadline) {
      await new Promise((r) => setTimeout(r, 250));
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
        const now = performance.now();
        for (const obj of page.Contents ?? []) {
          if (seen.has(obj.Key!)) continue;
          seen.add(obj.Key!);
          const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: obj.Key! }));
          const raw = await gunzip(Buffer.from(await got.Body!.transformToByteArray()));
          const text = raw.toString();
          let count = 0;
          for (const m of text.matchAll(/"id":"tr_(\d{10})"/g)) {
            const seq = Number(m[1]) - base;
            if (seq >= 0 && seq < o.total && Number.isFinite(enqueuedAt[seq])) lat.add(now - enqueuedAt[seq]);
            count++;
          }
          listed += count;
          if (raw.length > 4_990_000) { // closed by the 5 MB cap, not the window
            fullListed += count;
            lastFullAt = now;
          }
        }
        token = page.NextContinuationToken;
      } while (token);
    }
  };
  const watching = o.prefill ? null : watch();

  // Two triggers per enqueue, as one request with a visit and a transit; bounded calls in flight.
  const inflight = new Set<Promise<void>>();
  for (let i = 0; i < o.total && Date.now() < o.deadline; i += 2) {
    if (Number.isFinite(o.rate)) {
      const due = t0 + (i / o.rate) * 1000;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    }
    const app = APPS[(i / 2) % APPS.length];
    const batch = [sampleTrigger(app, base + i), ...(i + 1 < o.total ? [sampleTrigger(app, base + i + 1)] : [])];
    const p = outbox.enqueue(app, batch).then(() => {
      const at = performance.now();
      for (let k = 0; k < batch.length; k++) enqueuedAt[i + k] = at;
      if (!o.prefill) worker.postMessage('wake');
    });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
    if (inflight.size >= 256) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  const enqueueRate = o.total / ((performance.now() - t0) / 1000);
  if (o.prefill) {
    t0 = performance.now(); // export rate from the exporter's start
    worker.postMessage('start');
  }
  await (watching ?? watch());
  worker.postMessage('stop');
  const { cpuS } = await new Promise<{ cpuS: number }>((r) => worker.once('message', r));
  await worker.terminate();
  await outbox.close();
  const exportRate = Number.isFinite(o.rate) ? listed / ((performance.now() - t0) / 1000) : fullListed / ((lastFullAt - t0) / 1000);
  return { enqueueRate, exportRate, lat: lat.summary(), objects: seen.size, lost: o.total - listed, cpuUs: (cpuS * 1e6) / listed };
}

/** s3rver in its own process, so its work does not share our event loop. */
async function startS3rverChild(dir: string): Promise<{ endpoint: string; close(): void }> {
  const code = `import S3rver from 's3rver';
    const s = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)} });
    const { port } = await s.run();
    process.stdout.write(port + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (c) => reject(new Error(`s3rver exited with ${c}`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, close: () => child.kill() };
}
