/**
 * Learned values across a fleet (state/nats/learned.ts): nodes of several detection threads each
 * (test/helpers/learned-node.ts, one process a node) merge into one value; every node reads the
 * exact sum within the write window, and the bucket is read once per node, not followed by every thread.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openNatsState } from '../../src/state/nats/kit.js';
import { decode, token } from '../../src/state/nats/kv.js';
import { startNatsCluster } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

/** What learned-node.ts merges into (not imported: importing it would start a node). */
const SHARED = ['kp', 'ak_fleet', ''] as const;
const NODES = 3;
const THREADS = 3;
const MERGES = 40;
const TOTAL = NODES * THREADS * MERGES;

interface Child { proc: ChildProcess; lines: string[]; send(line: string): void }

function startNode(servers: string): Child {
  const script = fileURLToPath(new URL('../helpers/learned-node.js', import.meta.url));
  const proc = spawn(process.execPath, [script, servers, String(THREADS), String(MERGES), String(TOTAL)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => lines.push(l.trim()));
  return { proc, lines, send: (l) => proc.stdin!.write(l + '\n') };
}

test('merges of many threads on many nodes sum exactly, every node reads the sum, one watch a node', async () => {
  const nats = await startNatsCluster(1, { monitor: true });
  const children: Child[] = [];
  after(async () => { for (const c of children) c.proc.kill(); await nats.stop(); });
  const servers = nats.nodes.map((n) => n.url).join(',');
  const kit = await openNatsState(servers.split(','));
  after(() => kit.close());
  await kit.learnedReady;

  children.push(...Array.from({ length: NODES }, () => startNode(servers)));
  await until('every node and its threads to open', () => children.every((c) => c.lines.includes('open')));
  const jsz = await (await fetch(`${nats.nodes[0].monitorUrl}/jsz?accounts=true&streams=true&consumers=true`)).json() as {
    account_details?: Array<{ stream_detail?: Array<{ name: string; state: { consumer_count: number } }> }>;
  };
  const learned = jsz.account_details?.flatMap((a) => a.stream_detail ?? []).find((s) => s.name === 'KV_dwell-learned');
  // A node's hub reads the bucket once at its start, then takes the fleet's changes (learned-fleet.ts).
  assert.ok((learned?.state.consumer_count ?? 0) <= NODES + 1, `the learned bucket watched at most once per node (${NODES} nodes of ${THREADS} threads, and this one): ${learned?.state.consumer_count}`);

  for (const c of children) c.send('go');
  await until('every node to read the sum of every node\'s merges', () => children.every((c) => c.lines.includes(`saw ${TOTAL}`)), 30_000);
  await until('this node to read it too', () => kit.learned.peek<number[]>(SHARED)?.[0] === TOTAL, 30_000);
  assert.deepEqual(kit.learned.peek<number[]>(SHARED), [TOTAL, TOTAL / 2]);

  // Each node's own table: written by its threads only, read by the others.
  const own = await Promise.all(children.map((c) => until(`node ${c.proc.pid}'s table`, () => kit.learned.peek<number[]>([`ks:n${c.proc.pid}`, 'ak_fleet', '']))));
  for (const t of own) assert.deepEqual(t, [7, THREADS * MERGES]);

  for (const c of children) c.send('close');
  await until('every node to close', () => children.every((c) => c.lines.includes('closed')));
  // Nothing was left to write at close, and nothing counted twice.
  assert.deepEqual(decode(await kit.buckets.learned.get(`${token('kp')}.ak_fleet.${token('')}`)), [TOTAL, TOTAL / 2]);
});
