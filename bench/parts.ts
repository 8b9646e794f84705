/**
 * `npm run bench:parts`: what each part of a detection request costs by itself, with tinybench,
 * in one thread: the bench:http bodies (seeded: 3 events × 10 fixes with Wi-Fi scans around
 * Monaco venues) through signing, inflate, parse, validate, detect, a user record's commit,
 * geofence evaluation and answer serialisation, and the place database's lookups beside the
 * country-coder lookup it replaced. Each task cycles over the prepared inputs, warms up first
 * (tinybench's warm-up time), and adds what it computes to a sink so nothing is optimised away.
 *
 *   node dist/bench/parts.js [--time MS (per task, 1000)] [--bodies N (500)] [--seed N (1)] [--no-doc]
 *
 * Figures are per call (one request's worth of work), in µs; the machine is shared, so compare
 * rows of one run rather than runs.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Bench } from 'tinybench';
import { iso1A2Code } from '@rapideditor/country-coder';
import { bodySha256, stringToSign } from '../src/signing.js';
import { parseJson } from '../src/http/json-body.js';
import { validateDetect } from '../src/schemas/validate-detect.js';
import { loadStore, openStore } from '../src/venues/store.js';
import { countryAt, nearestPlace } from '../src/venues/places.js';
import { estimateAddress } from '../src/venues/address.js';
import { DEFAULT_PARAMS, detectStructured, type DetectContext } from '../src/detect/index.js';
import { openUserStore } from '../src/users/store.js';
import { userOf } from '../src/users/identity.js';
import { FenceIndex } from '../src/geofences/fence-index.js';
import { circle } from '../src/geofences/geometry.js';
import { asFixes, evaluate, NO_PRESENCE } from '../src/geofences/events.js';
import type { StructuredRequest } from '../src/schemas/detect-request.js';
import { structuredRequest } from './lib/detect-requests.js';
import { prepareBody } from './lib/signing.js';
import { rng } from './lib/rng.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const argv = readFlags({ time: { type: 'string' }, bodies: { type: 'string' }, seed: { type: 'string' }, 'no-doc': { type: 'boolean' } });
const timeMs = numFlag('time', argv.time, 1000, 50, 60_000);
const nBodies = Math.round(numFlag('bodies', argv.bodies, 500, 10, 100_000));
const seed = Math.round(numFlag('seed', argv.seed, 1, 0, 2 ** 31));

// Inputs, all made before timing.
const prepared = Array.from({ length: nBodies }, (_, i) => prepareBody(structuredRequest(seed, i)));
const gz = prepared.map((p) => p.gz);
const raw = gz.map((b) => gunzipSync(b));
const NOW = Date.now();
const valid = raw.map((b) => validateDetect(parseJson(b), NOW).body as StructuredRequest);
const tmp = mkdtempSync(path.join(tmpdir(), 'dwell-bench-parts-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const users = openUserStore(tmp);
const ctx: DetectContext = {
  venues: openStore(await loadStore(path.join(ROOT, 'data/monaco'))), users, estimateAddress,
  app: { app_key: 'ak_parts', confirm_dwell_s: 300 }, now: NOW, params: DEFAULT_PARAMS,
};
const answers = valid.map((b) => detectStructured(b, ctx));
// 10,000 circles of 20–200 m over Monaco and its neighbours, as an app's fences.
const r = rng(seed);
const fences = new FenceIndex();
for (let i = 0; i < 10_000; i++) fences.add(`gf_${i}`, circle(43.70 + r.float(0, 0.08), 7.38 + r.float(0, 0.09), r.float(20, 200)), Infinity);
fences.rebuild();
const view = { index: fences, info: () => ({ tag: null, push_text: null }) };
const fixes = valid.map((b) => asFixes(b.events.flatMap((e) => e.data)));
// Points for the place lookups: over the land of Europe and North America, where most cells are new.
const points = Array.from({ length: 4096 }, () => (r.float(0, 1) < 0.5 ? [r.float(36, 60), r.float(-10, 30)] : [r.float(25, 50), r.float(-125, -70)]));

let sink = 0;
let k = 0;
const next = () => (k = (k + 1) % nBodies);
let p = 0;
const nextPoint = () => points[(p = (p + 1) & 4095)];
const utf8 = new TextEncoder();

const bench = new Bench({ time: timeMs, warmupTime: Math.min(500, timeMs / 2) });
bench
  .add('signing (SHA-256 of the body, HMAC of the string to sign)', () => {
    const b = gz[next()];
    sink += createHmac('sha256', 'parts-secret').update(stringToSign('1700000000', 'POST', '/v1/detect', bodySha256(b))).digest('hex').length;
  })
  .add('inflate (gunzip)', () => { sink += gunzipSync(gz[next()]).length; })
  .add('parse (strict UTF-8, JSON.parse)', () => { sink += parseJson(raw[next()]) ? 1 : 0; })
  .add('validate (parsed body)', () => { sink += validateDetect(parseJson(raw[next()]), NOW).kind.length; })
  .add('parse only (to subtract from validate)', () => { sink += parseJson(raw[next()]) ? 1 : 0; })
  .add('detect (stays, ranking, learned tables, the user record commit)', () => {
    const i = next();
    // Each pass over the bodies is a later day, so a replayed body is a new request for the stream state.
    if (i === 0) ctx.now += 86_400_000;
    sink += detectStructured(valid[i], ctx).length;
  })
  .add('commit (a user record read, encoded, put)', () => {
    sink += users.update(ctx.app.app_key, userOf(valid[next()]) ?? 'u', (record) => ({ record, result: 1 }));
  })
  .add('geofence evaluation (30 fixes, 10,000 fences)', () => { sink += evaluate(view, NO_PRESENCE, fixes[next()], NOW).events.length; })
  .add('serialise (answer JSON.stringify, UTF-8)', () => {
    sink += utf8.encode(JSON.stringify({ data: answers[next()], geofence_events: [], result: 'SUCCESS' })).length;
  })
  .add('country of a point: country-coder iso1A2Code (replaced)', () => { const [lat, lon] = nextPoint(); sink += iso1A2Code([lon, lat])?.length ?? 0; })
  .add('country of a point: place database countryAt', () => { const [lat, lon] = nextPoint(); sink += countryAt(lat, lon)?.length ?? 0; })
  .add('place of a point: place database nearestPlace', () => { const [lat, lon] = nextPoint(); sink += nearestPlace(lat, lon, countryAt(lat, lon))?.name.length ?? 0; });

await bench.run();
const us = (ms: number | undefined) => (ms === undefined ? '–' : (ms * 1000).toFixed(ms < 0.01 ? 2 : 1));
const rows = bench.tasks.map((t) => {
  const res = t.result as { latency?: { p50: number; mean: number; p99: number; rme: number }; runtime?: unknown; state?: string; error?: Error };
  if (!res.latency) return [t.name, '–', '–', '–', '–', '–'];
  return [t.name, us(res.latency.p50), us(res.latency.mean), us(res.latency.p99), `±${res.latency.rme.toFixed(1)} %`, String(t.runs)];
});
const table = markdownTable(['part', 'median µs', 'mean µs', 'p99 µs', 'rme', 'samples'], rows, ['left', 'right', 'right', 'right', 'right', 'right']);
const md = `tinybench ${timeMs} ms a task after a warm-up, one thread, ${nBodies} bench:http bodies (seed ${seed}) against the bundled ` +
  `Monaco store, each task cycling over them; "validate" includes a parse (its input is a fresh parse each time: the row below it is that parse alone).\n\n${table}`;
console.log(md);
if (sink === -1) console.log(sink);
writePerformanceSection('parts', md);
process.exit(0);
