/**
 * The delivery worker thread (started by src/delivery/service.ts): opens the outbox and the app
 * settings from DWELL_DATA_DIR and runs every sender on them until told to stop.
 *
 * Senders: postbacks and bucket exports, each a `(ctx: WorkerContext) => DeliverySender` in
 * SENDERS. Each takes only the entries of apps with its delivery method.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { AppSettings } from '../src/delivery/app-settings.js';
import { openOutbox } from '../src/delivery/open-outbox.js';
import { Keyring } from '../src/secrets/keyring.js';
import { postbackSender } from '../src/delivery/postback/index.js';
import { bucketExporter } from '../src/delivery/bucket/index.js';
import { NODE_ID } from '../src/delivery/bucket/node-id.js';
import { WorkerMetrics } from '../src/delivery/worker-metrics.js';
import type { DeliverySender, WorkerContext, WorkerInit } from '../src/delivery/worker-contract.js';
import type { FromWorker, ToWorker } from '../src/delivery/thread-messages.js';
import { log, setLogLevel } from '../src/log.js';
import { onAdvance, useClock } from '../src/time/clock.js';

const SENDERS: Array<(ctx: WorkerContext) => DeliverySender> = [
  postbackSender,
  bucketExporter,
];

const port = parentPort!;
const init = workerData as WorkerInit;
if (init.logLevel) setLogLevel(init.logLevel);
useClock(init.clock); // before anything reads the time: backoff, leases and windows run on the server's clock

const ctx: WorkerContext = {
  init,
  outbox: await openOutbox(init.state, init.dataDir, { consume: true, name: 'dwell-delivery' }),
  apps: new AppSettings(init.dataDir, Keyring.fromShared(init.keys)),
  metrics: new WorkerMetrics((m: FromWorker) => port.postMessage(m)),
};
const senders = SENDERS.map((make) => make(ctx));
for (const s of senders) s.start();
// JetStream: triggers published by any node arrive here; LMDB: this thread never enqueues.
ctx.outbox.onEnqueue(() => { for (const s of senders) s.wake(); });
// A test moved the server's time: retries and batch windows that fell due go now, not at the next poll.
onAdvance(() => { for (const s of senders) s.wake(); });
log.info('delivery worker started', { senders: senders.map((s) => s.name), node_id: NODE_ID, state: init.state.kind });
port.postMessage({ type: 'started' } satisfies FromWorker);

port.on('message', (m: ToWorker) => {
  if (m.type === 'wake') for (const s of senders) s.wake();
  else if (m.type === 'stop') void stop();
});

async function stop(): Promise<void> {
  for (const r of await Promise.allSettled(senders.map((s) => s.stop()))) {
    if (r.status === 'rejected') log.error('a delivery sender failed to stop', { error: String(r.reason) });
  }
  ctx.metrics.close();
  await ctx.apps.close();
  await ctx.outbox.close();
  port.postMessage({ type: 'stopped' } satisfies FromWorker);
}
