/**
 * Cluster beacon registry benchmark (`node dist/bench/cluster-beacons.js [--writes 300] [--lines 20000] [--rounds 3]`):
 * two nodes' stores (beacons/cluster-store.ts) on one nats-server started here, the embedded
 * LMDB store measured in the same run as the peer.
 *
 * 1. A create through node A until node B's copy holds it (what a detection thread on B waits
 *    for: the bucket's watch), and the create's own latency beside LMDB's; sequential, after a
 *    warm-up of 50.
 * 2. An import of `--lines` new beacons in one call, cluster and LMDB alternating, `--rounds` each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { atExit } from '../src/devkit/child.js';
import { openNatsState } from '../src/state/nats/kit.js';
import { ClusterBeaconStore } from '../src/beacons/cluster-store.js';
import { LmdbBeaconStore } from '../src/beacons/lmdb-store.js';
import type { BeaconStore, ImportItem } from '../src/beacons/store.js';
import type { BeaconInput } from '../src/schemas/beacon.js';
import { startNatsCluster } from '../src/devkit/nats-server.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { Samples, median, spread } from './lib/stats.js';
import { markdownTable, fmtInt, fmtMs } from './lib/table.js';
import { benchFlags } from '../src/devkit/flags.js';

const flag = benchFlags({ writes: 'string', lines: 'string', rounds: 'string', 'no-doc': 'boolean' },
  'node dist/bench/cluster-beacons.js [--writes 300] [--lines 20000] [--rounds 3] [--no-doc]');

const WRITES = flag.num('writes', 300), LINES = flag.num('lines', 20_000), ROUNDS = flag.num('rounds', 3);
const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
let major = 0;
const beacon = (minor: number): BeaconInput => ({ uuid: UUID, major, minor, venue_id: null, location: { lat: 43.7, long: 7.4 }, tag: null });

const nats = await startNatsCluster(1);
const servers = nats.nodes.map((n) => n.url);
const [ka, kb] = await Promise.all([openNatsState(servers), openNatsState(servers)]);
const [a, b] = [new ClusterBeaconStore(ka.beacons), new ClusterBeaconStore(kb.beacons)];
const lmdbDir = mkdtempSync(path.join(tmpdir(), 'dwell-bench-beacons-'));
atExit(() => rmSync(lmdbDir, { recursive: true, force: true }));
const lmdb = new LmdbBeaconStore(lmdbDir);
await Promise.all([a.ready, b.ready]);

const seenOnB = (app: string, id: string) => new Promise<void>((done) => {
  const look = () => (b.get(app, id) ? done() : setImmediate(look));
  look();
});
const created = async (store: BeaconStore, n: number, each?: (ms: number, id: string) => Promise<void>) => {
  const lat = new Samples();
  major++;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const rec = await store.create('ak_bench', beacon(i));
    lat.add(performance.now() - t0);
    await each?.(t0, rec.id);
  }
  return lat.summary();
};
await created(a, 50);
await created(lmdb, 50);
const visible = new Samples();
const write = await created(a, WRITES, async (t0, id) => { await seenOnB('ak_bench', id); visible.add(performance.now() - t0); });
const lmdbWrite = await created(lmdb, WRITES);
const seen = visible.summary();

const imports: Record<'cluster' | 'lmdb', number[]> = { cluster: [], lmdb: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, store] of [['cluster', a], ['lmdb', lmdb]] as const) {
    major++;
    const items: ImportItem[] = Array.from({ length: LINES }, (_, i) => ({ input: beacon(i), patch: {} }));
    const t0 = performance.now();
    await store.upsertMany(`ak_import_${r}`, items);
    imports[name].push(LINES / ((performance.now() - t0) / 1000));
  }
}

const row = (what: string, s: { p50: number; p90: number; p99: number }) => [what, fmtMs(s.p50), fmtMs(s.p90), fmtMs(s.p99)];
const md = markdownTable(['sequential, after 50 warm-up', 'p50', 'p90', 'p99'], [
  row('cluster create, answered on A', write), row('… held by B\'s copy (from the call)', seen), row('LMDB create (peer)', lmdbWrite),
]) + '\n\n' + markdownTable([`import of ${fmtInt(LINES)} new beacons`, 'lines/s, median', 'spread'], (['cluster', 'lmdb'] as const).map((k) => {
  const s = spread(imports[k]);
  return [k, fmtInt(median(imports[k])), `${fmtInt(s.min)}–${fmtInt(s.max)}`];
}));
console.log(md);
writePerformanceSection('cluster-beacons', md + '\n\nTwo cluster stores (two NATS connections, as two nodes) on one local nats-server (R1); the LMDB store in the same run.');
await Promise.all([a.close(), b.close(), lmdb.close()]);
await Promise.all([ka.close(), kb.close()]);
await nats.stop();
