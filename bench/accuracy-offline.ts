/**
 * Offline accuracy harness: runs the detection core in-process over a vdsim request set and
 * scores the answers with vdsim. No server, no HTTP: this is what ranking work iterates with.
 *
 *   node dist/bench/accuracy-offline.js --venues V.jsonl.gz --requests DIR [--results FILE]
 *        [--ablate popularity,history,wifiPos,silence,radiusCap,counted,legs,…] [--set temperature=1.2,none=-3]
 *        [--pos minStays=3] [--learned priorVisits=40] [--footprint priorStays=10] [--type priorStays=20,hour=0.6] [--counted priorStays=20]
 *        [--leg windowS=300] [--memory 1] [--aps APS.jsonl]
 *
 * Venues go through the real importer into a real store (as `dwell import --format jsonl`), so
 * what is measured is what ships; `--memory 1` uses the in-memory test store instead.
 * `--aps` (from `ceilings.js aps`) puts the simulator's access points in the store before the
 * replay, each as a place known to 1 m: the ceiling of Wi-Fi positioning with a perfect map.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { detectStructured, detectUnstructured, type DetectContext } from '../src/detect/index.js';
import { openUserStore } from '../src/users/store.js';
import { MemoryVenueStore } from '../test/helpers/memory-venues.js';
import { runImport } from '../src/venues/import/build.js';
import { loadStore, openStore } from '../src/venues/store.js';
import type { VenueStore } from '../src/detect/venue.js';
import { WEIGHTS } from '../src/detect/rank.js';
import { W_POS } from '../src/detect/assess.js';
import { SILENCE } from '../src/detect/stream.js';
import { WIFI_POS } from '../src/detect/evidence/position.js';
import { LEARNED } from '../src/detect/evidence/learned-priors.js';
import { FOOTPRINT } from '../src/detect/evidence/footprint.js';
import { COUNTED } from '../src/detect/evidence/counted-prior.js';
import { LEG } from '../src/detect/leg.js';
import { TYPE_PRIORS } from '../src/detect/evidence/type-priors.js';
import type { StructuredRequest, UnstructuredRequest } from '../src/schemas/detect-request.js';
import { VDSIM } from './lib/vdsim.js';


function args(): Record<string, string> {
  const out: Record<string, string> = {};
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) out[a[i].replace(/^--/, '')] = a[i + 1];
  return out;
}

const opts = args();
if (!opts.venues || !opts.requests) {
  console.error('usage: accuracy-offline --venues V.jsonl[.gz] --requests DIR [--results FILE] [--ablate a,b] [--set k=v,...]');
  process.exit(2);
}
for (const f of (opts.ablate ?? '').split(',').filter(Boolean)) {
  if (f === 'wifiPos') { W_POS.on = 0; continue; }
  if (f === 'silence') { SILENCE.minMs = Infinity; continue; }
  if (f === 'footprint') { FOOTPRINT.on = 0; continue; }
  if (f === 'typePriors') { TYPE_PRIORS.on = 0; continue; }
  if (f === 'counted') { COUNTED.on = 0; continue; }
  if (f === 'legs') { LEG.on = 0; continue; }
  if (f === 'radiusCap') { WEIGHTS.maxRadius = Infinity; continue; }
  if (!(f in WEIGHTS)) throw new Error(`unknown factor ${f}`);
  (WEIGHTS as Record<string, number>)[f] = 0;
}
for (const kv of (opts.learned ?? '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in LEARNED)) throw new Error(`unknown learned-prior setting ${k}`);
  (LEARNED as Record<string, number>)[k] = Number(v);
}
for (const kv of (opts.footprint ?? '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in FOOTPRINT)) throw new Error(`unknown footprint setting ${k}`);
  (FOOTPRINT as Record<string, number>)[k] = Number(v);
}
for (const kv of (opts.type ?? '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in TYPE_PRIORS)) throw new Error(`unknown type-prior setting ${k}`);
  (TYPE_PRIORS as Record<string, number>)[k] = Number(v);
}
for (const kv of (opts.counted ?? '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in COUNTED)) throw new Error(`unknown counted-prior setting ${k}`);
  (COUNTED as Record<string, number>)[k] = Number(v);
}
for (const kv of (opts.pos ?? '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in WIFI_POS)) throw new Error(`unknown Wi-Fi positioning setting ${k}`);
  (WIFI_POS as Record<string, number>)[k] = Number(v);
}
for (const kv of (opts.leg ?? '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in LEG)) throw new Error(`unknown leg setting ${k}`);
  (LEG as Record<string, number>)[k] = Number(v);
}
for (const kv of (opts.set ?? '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in WEIGHTS)) throw new Error(`unknown weight ${k}`);
  (WEIGHTS as Record<string, number>)[k] = Number(v);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-acc-'));
// What ships: the real importer builds the real store. --memory uses the small test store instead.
let venues: VenueStore;
if (opts.memory) venues = MemoryVenueStore.fromJsonl(opts.venues);
else {
  const root = path.join(dataDir, 'venues');
  await runImport({ format: 'jsonl', file: opts.venues, out: root, quiet: true });
  venues = openStore(await loadStore(root));
}
const users = openUserStore(dataDir, { noSync: true });
if (opts.aps) {
  // Weight 1 = known to 1 m; a teaching stay adds about 1 / (σ² + d²) ≈ 0.005, so the map stays.
  const aps = fs.readFileSync(opts.aps, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { bssid: string; lat: number; lon: number });
  users.learn('bench', aps.map((a) => ({ bssid: a.bssid, at: [a.lat, a.lon, 1] as [number, number, number] })));
}
const results = opts.results ?? path.join(dataDir, 'results.jsonl');
const out = fs.openSync(results, 'w');
const ctx: DetectContext = { venues, users, estimateAddress: () => ({}), app: { app_key: 'bench', confirm_dwell_s: 300 }, now: 0 };

const reqFile = path.join(opts.requests, 'requests.jsonl');
const lines = fs.readFileSync(reqFile, 'utf8').split('\n').filter((l) => l.trim());
const perEvent: number[] = [];
const t0 = performance.now();
for (const line of lines) {
  const { body, send_at } = JSON.parse(line) as { body: StructuredRequest & UnstructuredRequest; send_at: string };
  ctx.now = Date.parse(send_at);
  users.fresh(); // as a worker does before every task
  const t = performance.now();
  const data = body.events ? detectStructured(body, ctx) : detectUnstructured(body, ctx);
  if (body.events) { const dt = performance.now() - t; for (let i = 0; i < body.events.length; i++) perEvent.push(dt / body.events.length); }
  fs.writeSync(out, JSON.stringify({ request_id: body.request_id, response: { data, result: 'SUCCESS' } }) + '\n');
}
fs.closeSync(out);
const wall = (performance.now() - t0) / 1000;
users.close();

const score = JSON.parse(execFileSync('node', [VDSIM, 'score', '--truth', opts.requests, '--results', results], { encoding: 'utf8' }));
perEvent.sort((a, b) => a - b);
const q = (p: number) => perEvent.length ? Number(perEvent[Math.floor(p * (perEvent.length - 1))].toFixed(3)) : null;
console.log(JSON.stringify({ ...score, requests: lines.length, wall_s: Number(wall.toFixed(1)),
  ms_per_event_p50: q(0.5), ms_per_event_p99: q(0.99), weights: WEIGHTS, wifi_pos: W_POS.on ? WIFI_POS : 'off', learned: LEARNED, footprint: FOOTPRINT, counted: COUNTED, legs: LEG, type_priors: TYPE_PRIORS }));
if (!opts.results) fs.rmSync(dataDir, { recursive: true, force: true });
