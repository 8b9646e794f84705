import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdown, type SoakRun } from '../lib/soak-report.js';
import type { Minute } from '../lib/soak-minutes.js';
import { Samples, summarize } from '../lib/stats.js';

test('bench:soak samples: the share over a bound counts the samples strictly above it', () => {
  const s = new Samples();
  for (let i = 1; i <= 2000; i++) s.add(i / 100); // 0.01 … 20 ms
  assert.equal(s.shareOver(5), 1500 / 2000);
  assert.equal(s.shareOver(20), 0);
  assert.ok(Number.isNaN(new Samples().shareOver(5)));
});

const minute = (n: number, over: { client: number; server: number }, generator: { p99Ms: number; maxMs: number }): Minute => ({
  minute: n, sent: 18_000, ok: 18_000, errors: 0,
  client: summarize(Float64Array.from({ length: 100 }, (_, i) => i / 10)),
  server: { count: 18_000, over: 0, share: 0, meanMs: 1.2 },
  tail: over, generator,
  memory: { rssMb: 700, anonMb: 600, fileMb: 100, shmemMb: 0 },
  gc: {}, load1: 0.5, cpu: { mainMs: 0.25, otherMs: 0.8 },
});

test('bench:soak report: where the tail is made, the client and server shares over 5 ms and the generator delay, per minute', () => {
  const dwell = minute(1, { client: 0.0217, server: 0.0063 }, { p99Ms: 1.1, maxMs: 8.3 });
  const floor = { ...minute(1, { client: 0.0002, server: NaN }, { p99Ms: 0.59, maxMs: 5.1 }), server: null };
  const run: SoakRun = { label: 'soak-test', rate: 300, rateNote: '300 req/s', minutes: 1, requests: 'test', loadStart: 0.5, loadEnd: 0.5,
    dwell: { minutes: [dwell], readyMs: 1500, errors: {}, cacheMb: 'default' }, floor: { minutes: [floor] } };
  const md = markdown(run);
  assert.match(md, /over 5 ms client \/ server/);
  assert.match(md, /\|\s+2\.17 % \/ 0\.63 % \|\s+1\.1 \/ 8\.3 \|/);
  // The floor has no histogram of its own: its row shows the client's share alone.
  assert.match(md, /\|\s+0\.02 % \|\s+0\.59 \/ 5\.1 \|/);
});
