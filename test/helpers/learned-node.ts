/**
 * One Dwell node's learned state as the server runs it (a kit on the main thread, one per
 * detection thread), as a child process for test/state/nats-learned-fleet.test.ts:
 *
 *   node learned-node.js SERVERS THREADS MERGES TOTAL
 *
 * Opens the kits, says `open`; on `go` (stdin) every thread merges MERGES times into the shared
 * priors (['kp', 'ak_fleet']: [1, 0.5] each) and the node's own sparse table; says `merged`, then
 * `saw TOTAL` once its own reads give TOTAL for the shared count (every node's merges), or `gave up: …` and exits 1 when
 * they do not within a minute; on `close`, closes its kits and leaves.
 */
import { createInterface } from 'node:readline';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { openNatsState } from '../../src/state/nats/kit.js';
import type { LearnedKey } from '../../src/state/types.js';
import { until } from './until.js';

const SHARED: LearnedKey = ['kp', 'ak_fleet', ''];

interface Job { servers: string[]; merges: number; node: string }

async function thread(job: Job): Promise<void> {
  const kit = await openNatsState(job.servers);
  await kit.learnedReady;
  parentPort!.postMessage('open');
  await new Promise((r) => parentPort!.once('message', r));
  for (let i = 0; i < job.merges; i++) {
    // Merges of one request go together, as the detection pipeline sends them.
    await Promise.all([
      kit.learned.merge<number[]>(SHARED, (old) => [(old?.[0] ?? 0) + 1, (old?.[1] ?? 0) + 0.5]),
      kit.learned.merge<number[]>([`ks:${job.node}`, 'ak_fleet', ''], (old) => [...(old ?? []), 7, 1]),
    ]);
  }
  parentPort!.postMessage('merged');
  await new Promise((r) => parentPort!.once('message', r));
  await kit.close();
  parentPort!.postMessage('closed');
}

async function main(): Promise<void> {
  const [servers, threads, merges] = process.argv.slice(2);
  const job: Job = { servers: servers.split(','), merges: Number(merges), node: `n${process.pid}` };
  const kit = await openNatsState(job.servers);
  await kit.learnedReady;
  const workers = Array.from({ length: Number(threads) }, () => new Worker(new URL(import.meta.url), { workerData: job }));
  const all = (what: string) => Promise.all(workers.map((w) => new Promise<void>((r) => { const on = (m: unknown) => { if (m === what) { w.off('message', on); r(); } }; w.on('message', on); })));
  await all('open');
  const say = (s: string) => process.stdout.write(s + '\n');
  say('open');
  const lines = createInterface({ input: process.stdin });
  const next = (what: string) => new Promise<void>((r) => { const on = (l: string) => { if (l.trim() === what) { lines.off('line', on); r(); } }; lines.on('line', on); });
  await next('go');
  const merged = all('merged');
  for (const w of workers) w.postMessage('go');
  await merged;
  say('merged');
  const total = Number(process.argv[5]);
  try {
    await until(`the shared count to reach ${total}`, () => kit.learned.peek<number[]>(SHARED)?.[0] === total, 60_000, 20);
  } catch (err) {
    // Bounded, and said: the test reads why this node stopped, and no node is left polling.
    say(`gave up: ${(err as Error).message}; the count is ${JSON.stringify(kit.learned.peek<number[]>(SHARED))}`);
    process.exit(1);
  }
  say(`saw ${total}`);
  await next('close');
  const closed = all('closed');
  for (const w of workers) w.postMessage('close');
  await closed;
  await kit.close();
  say('closed');
  process.exit(0);
}

if (isMainThread) void main();
else void thread(workerData as Job);
