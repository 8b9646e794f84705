/**
 * A stand-alone exporter process for the crash tests (and a small local harness by hand):
 * `BUCKET_HARNESS='{"dataDir","app","enqueue"?,"windowMs"?,"uploadTimeoutMs"?}' node dist/test/bucket-harness.js`.
 * Opens the outbox in dataDir, optionally enqueues N sample triggers for the app, runs a
 * BucketExporter, and reports JSON lines on stdout: enqueued, held (each change), event, pending.
 */
import { Outbox } from '../src/delivery/outbox.js';
import { BucketExporter } from '../src/delivery/bucket/exporter.js';
import type { AppRecord } from '../src/schemas/app.js';
import { sampleTrigger } from './bucket-helpers.js';

interface Options { dataDir: string; app: AppRecord; enqueue?: number; windowMs?: number; uploadTimeoutMs?: number }

// Started by the bucket crash tests with its options in BUCKET_HARNESS.
const o = JSON.parse(process.env.BUCKET_HARNESS ?? '') as Options;
const say = (m: object) => process.stdout.write(JSON.stringify(m) + '\n');
const outbox = new Outbox(o.dataDir);
if (o.enqueue) {
  await outbox.enqueue(o.app.app_key, Array.from({ length: o.enqueue }, (_, i) => sampleTrigger(o.app.app_key, i)));
  say({ enqueued: o.enqueue });
}
const exporter = new BucketExporter({
  outbox, appSettings: (k) => (k === o.app.app_key ? o.app : undefined),
  windowMs: o.windowMs, uploadTimeoutMs: o.uploadTimeoutMs,
  onEvent: (event) => say({ event, pending: outbox.pendingCount() }),
});
exporter.start();
let held = -1;
setInterval(() => {
  const now = exporter.stats().held_triggers;
  if (now !== held) say({ held: (held = now) });
}, 20);
process.on('SIGTERM', async () => {
  await exporter.stop();
  await outbox.close();
  process.exit(0);
});
