/**
 * `npm run bench:cluster-delivery`: postbacks through the JetStream trigger queue (cluster
 * mode) against the embedded LMDB outbox, same machine, same run, same receiver.
 *
 * For each engine: --backlog triggers for --apps postback apps are enqueued as the HTTP thread
 * does (requests of 2 triggers, --concurrency enqueues in flight: the time until each is durable
 * is what a 202 waits for), then one delivery worker (startDelivery, as `dwell serve` runs it)
 * drains them into a receiver in a child process, timed until every trigger id has arrived.
 * JetStream runs as one local nats-server (R1): a three-server cluster adds replication round
 * trips to every publish and ack.
 *
 *   node dist/bench/cluster-delivery.js [--backlog N] [--apps N] [--concurrency N] [--no-doc]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { atExit } from '../src/devkit/child.js';
import { startTriggerReceiver } from './lib/trigger-receiver.js';
import { fmtInt, markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { AppRegistry } from '../src/apps/registry.js';
import { openOutbox } from '../src/delivery/open-outbox.js';
import { startDelivery } from '../src/delivery/service.js';
import { newTriggerId } from '../src/delivery/trigger-id.js';
import { Metrics } from '../src/http/metrics.js';
import type { StateTarget } from '../src/config.js';
import type { Trigger } from '../src/schemas/visit.js';
import { startNatsCluster } from '../src/devkit/nats-server.js';
import { readFlags } from '../src/devkit/flags.js';

const argv = readFlags({ backlog: { type: 'string', default: '20000' }, apps: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '64' }, 'no-doc': { type: 'boolean', default: false } });
const opts = { backlog: Number(argv.backlog), apps: Number(argv.apps), concurrency: Number(argv.concurrency) };
const log = (s: string) => process.stderr.write(s + '\n');

function trigger(app: string, i: number): Trigger {
  const venue = { id: 'osm:n1', name: 'Café de Paris', category: 'Food', sub_category: 'Café', probability: 0.6 };
  return {
    data: {
      id: newTriggerId(), request_id: `bench-${i}`, event_id: '1',
      user_info: { user_id: `u${i % 1000}`, device_id: null, app_key: app, custom_data: { cohort: 'c1' } },
      visit: { id: 'v', event_type: 'visit', is_confirmed: true, start_time: '2024-05-06T07:25:00+02:00', end_time: '2024-05-06T07:50:00+02:00', place_id: venue.id,
        place: { id: venue.id, type: 'Café', type_id: 1, estimated_address: { city: 'Monaco', country: 'Monaco', state: '', formatted_city: 'Monaco', postal_code: '', formatted_address: 'Place du Casino, Monaco', street_address: 'Place du Casino' },
          estimated_geolocation: { lat: 43.7396, long: 7.42835, accuracy: 20 }, venue_info: venue, venues: [venue] } },
    },
    result: 'SUCCESS',
  } as Trigger;
}

interface Run { engine: string; triggers: number; enqueuePerS: number; enqueueP99Ms: number; drainS: number; perS: number; attempts: number }

async function run(engine: string, state: StateTarget): Promise<Run> {
  const sink = await startTriggerReceiver();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dwell-bench-cluster-'));
  const registry = new AppRegistry(dataDir, { secretGraceS: 0, allowPrivate: true });
  const outbox = await openOutbox(state, dataDir, { consume: false });
  try {
    const keys: string[] = [];
    for (let a = 0; a < opts.apps; a++) keys.push((await registry.create({ name: 'bench' + a, delivery: { method: 'postback', url: sink.url } })).app.app_key);
    const waits: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: opts.concurrency }, async () => {
      for (let i = next; i < opts.backlog; i = next) {
        next += 2;
        const app = keys[(i / 2) % keys.length];
        const s = performance.now();
        await outbox.enqueue(app, [trigger(app, i), trigger(app, i + 1)]);
        waits.push(performance.now() - s);
      }
    }));
    const enqueueS = (performance.now() - t0) / 1000;
    waits.sort((a, b) => a - b);
    const total = waits.length * 2;
    log(`[${engine}] ${fmtInt(total)} triggers enqueued in ${enqueueS.toFixed(2)} s; draining…`);
    const d0 = performance.now();
    const delivery = startDelivery({ dataDir, state, outbox, metrics: new Metrics(), allowPrivate: true, logLevel: 'warn' });
    while (sink.state.first < total) await new Promise((r) => setTimeout(r, 20));
    const drainS = (performance.now() - d0) / 1000;
    await delivery.close();
    return {
      engine, triggers: total, enqueuePerS: total / enqueueS, enqueueP99Ms: waits[Math.floor(waits.length * 0.99)],
      drainS, perS: total / drainS, attempts: sink.state.attempts,
    };
  } finally {
    sink.close();
    await outbox.close();
    await registry.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const nats = await startNatsCluster(1);
  atExit(() => void nats.stop());
  const rows: Run[] = [];
  try {
    rows.push(await run('LMDB outbox (embedded)', { kind: 'lmdb' }));
    rows.push(await run('JetStream, 1 nats-server', { kind: 'nats', servers: nats.urls.split(',') }));
  } finally {
    await nats.stop();
  }
  for (const r of rows) log(`[${r.engine}] ${fmtInt(r.perS)} deliveries/s, enqueue ${fmtInt(r.enqueuePerS)} triggers/s (p99 ${r.enqueueP99Ms.toFixed(1)} ms)`);
  const md = markdownTable(
    ['trigger queue', 'triggers', 'apps', 'enqueue triggers/s', 'enqueue p99 ms (2 triggers)', 'drain s', 'postbacks/s', 'attempts'],
    rows.map((r) => [r.engine, fmtInt(r.triggers), String(opts.apps), fmtInt(r.enqueuePerS), r.enqueueP99Ms.toFixed(1), r.drainS.toFixed(2), fmtInt(r.perS), fmtInt(r.attempts)]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  process.stdout.write(md + '\n');
  writePerformanceSection('cluster-delivery', md + `\n\nOne delivery worker (one node) drains each queue into a loopback receiver; ${opts.concurrency} enqueues of 2 triggers in flight. JetStream: one local nats-server, R1.`);
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(String(err?.stack ?? err) + '\n');
  process.exit(1);
});
