/**
 * The retention sweep's thread (started by src/privacy/sweep-thread.ts): opens the users, geofence
 * and outbox environments of DWELL_DATA_DIR and runs the RetentionSweeper on them, keeping to the
 * moments no request is in flight, until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Outbox } from '../src/delivery/outbox.js';
import { GeofenceStore } from '../src/geofences/store.js';
import { openPrivacyStores } from '../src/privacy/stores.js';
import { RetentionSweeper } from '../src/privacy/retention.js';
import type { FromSweep, SweepThreadInit, ToSweep } from '../src/privacy/sweep-messages.js';
import { log, setLogLevel } from '../src/log.js';
import { useClock } from '../src/time/clock.js';

const port = parentPort!;
const init = workerData as SweepThreadInit;
if (init.logLevel) setLogLevel(init.logLevel);
useClock(init.clock); // the server's clock: retention ages, and advances wake the sweep

const inflight = new Int32Array(init.inflight);
const geofences = new GeofenceStore(init.dataDir);
const outbox = new Outbox(init.dataDir);
const stores = openPrivacyStores(init.dataDir, geofences, outbox, init.slotMs);
const sweeper = new RetentionSweeper(stores, {
  userRetentionMs: init.userRetentionMs, deadRetentionMs: init.deadRetentionMs, intervalMs: init.intervalMs,
  busy: () => Atomics.load(inflight, 0) > 0,
  onRemoved: (counts) => port.postMessage({ type: 'removed', counts } satisfies FromSweep),
}).start();
port.postMessage({ type: 'started' } satisfies FromSweep);

port.on('message', (m: ToSweep) => {
  if (m.type === 'stop') void stop();
});

async function stop(): Promise<void> {
  try {
    await sweeper.stop();
    await stores.users.close();
    await outbox.close();
    await geofences.close();
  } catch (err) {
    log.error('retention sweep thread failed to close its stores', { error: String((err as Error)?.message ?? err) });
  }
  port.postMessage({ type: 'stopped' } satisfies FromSweep);
  port.close();
}
