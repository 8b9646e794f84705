/**
 * What a vdsim request set allows any ranking to reach (docs/ranking.md "Ceilings"):
 *
 *   node dist/src/research/ceilings.js position --venues V.jsonl.gz --requests DIR --out DIR2 [--noise 5]
 *     writes a copy of DIR whose visit fixes stand at the true venue (one offset on the kind's
 *     footprint disc per event, plus `noise` m of Gaussian error per fix): run
 *     offline.js on DIR2 for the score of a phone that knows where it stands.
 *   node dist/src/research/ceilings.js twins --venues V.jsonl.gz --requests DIR [--results FILE]
 *     counts scored events whose venue has a twin (same name and category within 10 m), which no
 *     signal can tell apart, and with a results file, the top1 on and off them.
 *   node dist/src/research/ceilings.js aps --venues V.jsonl.gz --requests DIR --out APS.jsonl
 *     writes where the simulator put every access point around the venues (bssid, lat, lon,
 *     venue or null for a home or office router): run offline.js with `--aps APS.jsonl`
 *     for the score of Wi-Fi positioning with a perfect map of access points.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { seeded } from './rng.js';
import { VDSIM } from './vdsim.js';
import { flags, die } from './flags.js';
import { M_PER_DEG, mPerDegLon, metres as planarMetres } from '../geo/distance.js';

interface Venue { id: string; name?: string; category?: string; lat: number; lon: number }
interface Truth { request_id: string; event_id: string; type: string; venue_id: string; kind: string; scored: boolean }

const USAGE = 'ceilings position|twins|aps --venues V --requests DIR [--out DIR2|FILE] [--noise m] [--results FILE]';
const { values, rest } = flags(['venues', 'requests', 'out', 'noise', 'results'], USAGE);
const opts = values as Record<string, string>, cmd = rest[0];
if (!['position', 'twins', 'aps'].includes(cmd) || !opts.venues || !opts.requests || (cmd !== 'twins' && !opts.out)) die(`usage: ${USAGE}`);

const lines = (file: string): string[] => {
  const raw = fs.readFileSync(file);
  return (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8').split('\n').filter((l) => l.trim());
};
const venues = new Map<string, Venue>();
for (const l of lines(opts.venues)) { const v = JSON.parse(l) as Venue; venues.set(v.id, v); }
const truth = new Map<string, Truth>();
for (const l of lines(path.join(opts.requests, 'truth.jsonl'))) {
  const t = JSON.parse(l) as Truth;
  if (t.type === 'visit') truth.set(`${t.request_id}/${t.event_id}`, t);
}
const metres = (a: Venue, b: Venue): number => planarMetres(a.lat, a.lon, b.lat, b.lon);

if (cmd === 'position') positionOracle(); else if (cmd === 'aps') await accessPoints(); else twins();

/**
 * The simulator's own Wi-Fi world for the set's seed. vdsim exports nothing and runs its command
 * line on import, so a copy of its source without that last line is imported instead: the map is
 * the simulator's, not a re-implementation that could drift from it.
 */
async function accessPoints(): Promise<void> {
  const src = fs.readFileSync(VDSIM, 'utf8');
  const lib = src.replace(/^main\(\)\.catch.*$/m, 'export { WifiWorld, kindOf, cellOf };');
  if (lib === src) throw new Error('vdsim.mjs: expected its last statement to be main().catch(...), found none');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vdsim-lib-')), 'vdsim-lib.mjs');
  fs.writeFileSync(file, lib);
  const sim = await import(pathToFileURL(file).href);
  const meta = JSON.parse(fs.readFileSync(path.join(opts.requests, 'meta.json'), 'utf8')) as { seed: string; noise: { ambient: number } };
  const all = [...venues.values()].map((v) => ({ ...v, kind: sim.kindOf(v.category) }));
  const world = new sim.WifiWorld(all, meta.seed, meta.noise.ambient);
  const seen = new Set<string>(), out: string[] = [];
  for (const v of all) {
    const [cy, cx] = sim.cellOf(v.lat, v.lon) as [number, number];
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
      const k = `${cy + dy}:${cx + dx}`;
      if (seen.has(k)) continue;
      seen.add(k);
      for (const ap of world.apsInCell(cy + dy, cx + dx)) out.push(JSON.stringify({ bssid: ap.bssid, lat: ap.lat, lon: ap.lon, venue: ap.venue }));
    }
  }
  fs.writeFileSync(opts.out, out.join('\n') + '\n');
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  console.log(JSON.stringify({ wrote: opts.out, access_points: out.length, seed: meta.seed }));
}

/** The simulator's footprint radius per kind (vdsim README: "8 m for a café to 300 m for an airport"). */
function positionOracle(): void {
  const R: Record<string, number> = { home: 15, lodging: 30, work: 30, school: 40, quick: 8, night: 12, meal: 12, active: 25,
    airport: 300, transit: 40, outdoor: 60, shop: 15, culture: 40, medical: 30, other: 15 };
  const noise = Number(opts.noise ?? 5);
  const r = seeded(1), gauss = r.normal;
  fs.mkdirSync(opts.out, { recursive: true });
  for (const f of ['truth.jsonl', 'meta.json']) fs.copyFileSync(path.join(opts.requests, f), path.join(opts.out, f));
  const out: string[] = [];
  for (const l of lines(path.join(opts.requests, 'requests.jsonl'))) {
    const req = JSON.parse(l);
    for (const e of req.body.events ?? []) {
      const t = truth.get(`${req.body.request_id}/${e.event_id}`);
      const v = t && venues.get(t.venue_id);
      if (!t || !v) continue;
      const rr = (R[t.kind] ?? 15) * Math.sqrt(r.next()), a = 2 * Math.PI * r.next();
      for (const s of e.data) {
        const dx = rr * Math.cos(a) + gauss() * noise, dy = rr * Math.sin(a) + gauss() * noise;
        s.location.lat = v.lat + dy / M_PER_DEG;
        s.location.long = v.lon + dx / mPerDegLon(v.lat);
        s.location.accuracy = Math.max(3, 1.5 * noise);
      }
    }
    out.push(JSON.stringify(req));
  }
  fs.writeFileSync(path.join(opts.out, 'requests.jsonl'), out.join('\n') + '\n');
  console.log(JSON.stringify({ wrote: opts.out, requests: out.length, noise_m: noise }));
}

function twins(): void {
  // Grid of ~100 m cells so the pairing stays linear in the venue count.
  const cells = new Map<string, Venue[]>();
  const key = (v: Venue, dy = 0, dx = 0) => `${Math.floor(v.lat / 0.001) + dy}:${Math.floor(v.lon / 0.001) + dx}`;
  for (const v of venues.values()) { const k = key(v); if (!cells.has(k)) cells.set(k, []); cells.get(k)!.push(v); }
  const twinsOf = new Map<string, Set<string>>();
  for (const a of venues.values()) {
    if (!a.name) continue;
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) for (const b of cells.get(key(a, dy, dx)) ?? []) {
      if (b !== a && b.name === a.name && b.category === a.category && metres(a, b) < 10) {
        if (!twinsOf.has(a.id)) twinsOf.set(a.id, new Set());
        twinsOf.get(a.id)!.add(b.id);
      }
    }
  }
  let scored = 0, withTwin = 0;
  for (const t of truth.values()) if (t.scored) { scored++; if (twinsOf.has(t.venue_id)) withTwin++; }
  const report: Record<string, number> = { venues: venues.size, venues_with_twin: twinsOf.size, scored_events: scored,
    twin_events: withTwin, twin_share: withTwin / scored, top1_ceiling: 1 - withTwin / scored / 2 };
  if (opts.results) {
    let n = 0, hit = 0, tw = 0, twHit = 0, twEither = 0;
    for (const l of lines(opts.results)) {
      const r = JSON.parse(l);
      for (const d of r.response?.data ?? []) {
        const t = truth.get(`${r.request_id}/${d.event_id}`);
        if (!t?.scored) continue;
        const top = d.visit?.place?.venues?.[0]?.id;
        n++; if (top === t.venue_id) hit++;
        const twin = twinsOf.get(t.venue_id);
        if (twin) { tw++; if (top === t.venue_id) twHit++; if (top === t.venue_id || twin.has(top)) twEither++; }
      }
    }
    Object.assign(report, { top1: hit / n, top1_twin_events: twHit / tw, top1_twin_either: twEither / tw, top1_other_events: (hit - twHit) / (n - tw) });
  }
  console.log(JSON.stringify(report));
}
