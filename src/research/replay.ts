/**
 * The offline replay the research tools share: the detection core in-process over a vdsim request
 * set, no server, no HTTP, scored by vdsim. Venues go through the real importer into a real store
 * (as `dwell import --format jsonl`), so what is measured is what ships.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { detectStructured, detectUnstructured, type DetectContext } from '../detect/index.js';
import { openUserStore } from '../users/store.js';
import { runImport } from '../venues/import/build.js';
import { loadStore, openStore, type StoreHandle } from '../venues/store.js';
import type { VenueStore } from '../detect/venue.js';
import type { ModelParams } from '../detect/params.js';
import { viewOf } from '../beacons/lookup.js';
import type { StructuredRequest, UnstructuredRequest } from '../schemas/detect-request.js';
import { VDSIM } from './vdsim.js';

export type Body = StructuredRequest & UnstructuredRequest;
export type Answer = ReturnType<typeof detectStructured> | ReturnType<typeof detectUnstructured>;

export interface ReplayOptions {
  venues: VenueStore;
  /** The vdsim set's directory (requests.jsonl, truth.jsonl, meta.json, and beacons.jsonl when made with --beacons). */
  requests: string;
  params: ModelParams;
  /** Where the answers go (default: a temporary file, removed after scoring). */
  results?: string;
  /** Access points placed in the store before the replay, each known to 1 m (ceilings.ts aps). */
  aps?: string;
  /** Runs each request's detection (default: as is); the refit records its rankings this way. */
  around?: (body: Body, detect: () => Answer) => Answer;
  /** Skip vdsim's score (the refit scores itself). */
  noScore?: boolean;
}

export interface ReplayResult { score: Record<string, number | string | null>; requests: number; wallS: number; perEvent: number[] }

const handles = new Map<string, Promise<StoreHandle>>();
/**
 * The venue file's store, built once per process by the real importer into a temporary directory.
 * Opened again on every call: a thread keeps one store open (venues/store.ts openStore closes the
 * previous one), so a tool that alternates cities must not hold on to the other's.
 */
export async function venueStore(file: string): Promise<VenueStore> {
  let h = handles.get(file);
  if (!h) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-venues-')), root = path.join(dir, 'venues');
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    h = runImport({ format: 'jsonl', file, out: root, quiet: true }).then(() => loadStore(root));
    handles.set(file, h);
  }
  return openStore(await h);
}

export const readJsonl = <T>(file: string): T[] =>
  fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);

/** Replays the set through a fresh user store, in file order, as one app with a 5-minute confirmation dwell. */
export function replay(o: ReplayOptions): ReplayResult {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-acc-'));
  const users = openUserStore(dataDir);
  if (o.aps) {
    // Weight 1 = known to 1 m; a teaching stay adds about 1 / (σ² + d²) ≈ 0.005, so the map stays.
    const aps = readJsonl<{ bssid: string; lat: number; lon: number }>(o.aps);
    users.learn('bench', aps.map((a) => ({ bssid: a.bssid, at: [a.lat, a.lon, 1] as [number, number, number] })));
  }
  const results = o.results ?? path.join(dataDir, 'results.jsonl');
  const out = fs.openSync(results, 'w');
  const ctx: DetectContext = { venues: o.venues, users, estimateAddress: () => ({}), app: { app_key: 'bench', confirm_dwell_s: 300 }, now: 0, params: o.params };
  // The set's beacon registry (vdsim --beacons writes it), as the service would hold it after an import.
  const registry = path.join(o.requests, 'beacons.jsonl');
  if (fs.existsSync(registry)) {
    const at = new Date(0).toISOString();
    ctx.beacons = viewOf(readJsonl<{ uuid: string; major: number; minor: number; venue_id?: string; location?: { lat: number; long: number }; tag?: string }>(registry).map((b, i) => (
      { id: `bc_${i}`, app_key: 'bench', uuid: b.uuid.toLowerCase(), major: b.major, minor: b.minor, venue_id: b.venue_id ?? null, location: b.location ?? null, tag: b.tag ?? null, created_at: at, updated_at: at })));
  }
  const lines = readJsonl<{ body: Body; send_at: string }>(path.join(o.requests, 'requests.jsonl'));
  const perEvent: number[] = [];
  const around = o.around ?? ((_b, run) => run());
  const t0 = performance.now();
  for (const { body, send_at } of lines) {
    ctx.now = Date.parse(send_at);
    users.fresh(); // as a worker does before every task
    const t = performance.now();
    const data = around(body, () => (body.events ? detectStructured(body, ctx) : detectUnstructured(body, ctx)));
    if (body.events) { const dt = performance.now() - t; for (let i = 0; i < body.events.length; i++) perEvent.push(dt / body.events.length); }
    fs.writeSync(out, JSON.stringify({ request_id: body.request_id, response: { data, result: 'SUCCESS' } }) + '\n');
  }
  fs.closeSync(out);
  const wallS = (performance.now() - t0) / 1000;
  users.close();
  const score = o.noScore ? {} : JSON.parse(execFileSync('node', [VDSIM, 'score', '--truth', o.requests, '--results', results], { encoding: 'utf8' }));
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { score, requests: lines.length, wallS, perEvent };
}
