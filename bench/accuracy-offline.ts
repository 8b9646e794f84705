/**
 * Offline accuracy harness: runs the detection core in-process over a vdsim request set and
 * scores the answers with vdsim. No server, no HTTP: this is what ranking work iterates with.
 *
 *   node dist/bench/accuracy-offline.js --venues V.jsonl.gz --requests DIR [--results FILE]
 *        [--ablate popularity,history,wifiPos,silence,radiusCap,counted,legs,…] [--set temperature=1.2,none=-3]
 *        [--pos minStays=3] [--learned priorVisits=40] [--footprint priorStays=10] [--type priorStays=20,hour=0.6] [--counted priorStays=20]
 *        [--leg windowS=300] [--beacon sigmaDb=8,missCap=4] [--memory 1] [--aps APS.jsonl]
 *
 * A set made with vdsim --beacons has DIR/beacons.jsonl, the app's registry: it is used as the
 * service would hold it after an import (`--ablate beacons` ignores the scans).
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
import { DEFAULT_PARAMS, withParams, type ParamOverrides } from '../src/detect/params.js';
import { viewOf } from '../src/beacons/lookup.js';
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
/**
 * The model's parameters for this run, from the flags: a frozen variant of the defaults (nothing
 * shared is changed). --ablate switches factors off; the other flags set one group's values.
 */
function paramsFromFlags() {
  const o: Record<string, Record<string, number>> = {};
  const set = (group: string, k: string, v: number) => { (o[group] ??= {})[k] = v; };
  const ABLATE: Record<string, [string, string, number]> = {
    wifiPos: ['wifiPos', 'on', 0], silence: ['silence', 'minMs', Infinity], footprint: ['footprint', 'on', 0],
    typePriors: ['typePriors', 'on', 0], counted: ['counted', 'on', 0], beacons: ['beacons', 'on', 0], legs: ['leg', 'on', 0], radiusCap: ['weights', 'maxRadius', Infinity],
  };
  for (const f of (opts.ablate ?? '').split(',').filter(Boolean)) {
    if (ABLATE[f]) { set(...ABLATE[f]); continue; }
    if (!(f in DEFAULT_PARAMS.weights)) throw new Error(`unknown factor ${f}`);
    set('weights', f, 0);
  }
  const FLAGS: Array<[string, string]> = [['learned', 'learned'], ['footprint', 'footprint'], ['type', 'typePriors'], ['counted', 'counted'], ['pos', 'wifiPos'], ['leg', 'leg'], ['beacon', 'beacons'], ['set', 'weights']];
  for (const [flag, group] of FLAGS) {
    for (const kv of (opts[flag] ?? '').split(',').filter(Boolean)) {
      const [k, v] = kv.split('=');
      set(group, k, Number(v));
    }
  }
  return withParams(DEFAULT_PARAMS, o as ParamOverrides);
}
const params = paramsFromFlags();

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
const ctx: DetectContext = { venues, users, estimateAddress: () => ({}), app: { app_key: 'bench', confirm_dwell_s: 300 }, now: 0, params };
// The set's beacon registry (vdsim --beacons writes it), as the service would hold it after an import.
const registry = path.join(opts.requests, 'beacons.jsonl');
if (fs.existsSync(registry)) {
  const at = new Date(0).toISOString();
  ctx.beacons = viewOf(fs.readFileSync(registry, 'utf8').split('\n').filter((l) => l.trim()).map((l, i) => {
    const b = JSON.parse(l) as { uuid: string; major: number; minor: number; venue_id?: string; location?: { lat: number; long: number }; tag?: string };
    return { id: `bc_${i}`, app_key: 'bench', uuid: b.uuid.toLowerCase(), major: b.major, minor: b.minor, venue_id: b.venue_id ?? null, location: b.location ?? null, tag: b.tag ?? null, created_at: at, updated_at: at };
  }));
}

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
// Printed as before this setting joined its group: without `on`, which `wifi_pos: 'off'` says.
const { on: _on, ...wifiPos } = params.wifiPos;
const q = (p: number) => perEvent.length ? Number(perEvent[Math.floor(p * (perEvent.length - 1))].toFixed(3)) : null;
console.log(JSON.stringify({ ...score, requests: lines.length, wall_s: Number(wall.toFixed(1)),
  ms_per_event_p50: q(0.5), ms_per_event_p99: q(0.99), weights: params.weights, wifi_pos: params.wifiPos.on ? wifiPos : 'off', learned: params.learned, footprint: params.footprint, counted: params.counted, legs: params.leg, type_priors: params.typePriors, beacons: ctx.beacons ? params.beacons : 'none' }));
if (!opts.results) fs.rmSync(dataDir, { recursive: true, force: true });
