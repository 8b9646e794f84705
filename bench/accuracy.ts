/**
 * The issue's official accuracy measurement, end to end through the real service:
 *
 *   npm run bench:accuracy -- --venues V.jsonl[.gz] --requests DIR [--name SET] [--results FILE]
 *        [--vdsim PATH] [--workers N] [--concurrency N] [--no-doc]
 *
 * 1. imports the venues with the real importer (`runImport`, format jsonl) into a temp store;
 * 2. starts the real server (`node dist/src/cli.js serve`, PORT=0, temp data dir);
 * 3. creates a synchronous app through the admin API, and when DIR has beacons.jsonl (vdsim
 *    --beacons) imports it as the app's beacon registry (POST /v2/apps/<key>/beacons/import);
 * 4. replays DIR/requests.jsonl in order through POST /v1/detect, signed per contract §1 with a
 *    fresh timestamp each, gzip; requests start in file order with at most --concurrency (default
 *    4) in flight, and a user's request starts only once that user's previous one has answered;
 * 5. writes every response to results.jsonl (`{"request_id","response"}`) and prints vdsim's score;
 * 6. sets the row of this set (`--name`, default DIR's base name) in docs/performance.md's
 *    accuracy tables, leaving the other sets' rows as they were (`--no-doc`: not at all).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { runImport } from '../src/venues/import/build.js';
import { bodySha256, signature } from '../src/signing.js';
import { writePerformanceRow } from './lib/perf-doc.js';
import { VDSIM } from './lib/vdsim.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const argv = process.argv.slice(2);
const arg = (name: string, dflt?: string): string | undefined => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const say = (msg: string): void => { process.stderr.write(`[bench:accuracy] ${msg}\n`); };

const venuesFile = arg('venues');
const requestsDir = arg('requests');
if (!venuesFile || !requestsDir) {
  console.error('usage: npm run bench:accuracy -- --venues V.jsonl[.gz] --requests DIR [--name SET] [--results FILE] [--vdsim PATH] [--workers N] [--concurrency N] [--no-doc]');
  process.exit(2);
}
const vdsim = arg('vdsim') ? path.resolve(arg('vdsim')!) : VDSIM;
const concurrency = Math.max(1, Number(arg('concurrency', '4')));
const setName = arg('name') ?? path.basename(path.resolve(requestsDir));
const ADMIN = 'bench-accuracy-admin-token';

interface App { app_key: string; app_secret: string }
interface Line { seq: number; send_at: string; body: { request_id?: string; advertising_id?: string; user_id?: string } }

async function startServer(store: string, dataDir: string): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist/src/cli.js'), 'serve'], {
    env: { ...process.env, PORT: '0', DWELL_HOST: '127.0.0.1', DWELL_VENUES: store, DWELL_DATA_DIR: dataDir,
      DWELL_ADMIN_TOKEN: ADMIN, DWELL_RATE_LIMIT: '0', ...(arg('workers') ? { DWELL_WORKERS: arg('workers')! } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs: string[] = [];
  let buf = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dwell did not start:\n${logs.join('\n')}`)), 60_000);
    proc.stderr!.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (logs.length < 200) logs.push(line);
        try { const e = JSON.parse(line); if (e.msg === 'listening') { clearTimeout(timer); resolve(e.port); } } catch { /* not JSON */ }
      }
    });
    proc.on('exit', (code) => reject(new Error(`dwell exited with ${code}:\n${logs.join('\n')}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(url + '/readyz')).status === 200) return { url, proc }; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready`);
}

/** DIR/beacons.jsonl through the registry's bulk import (contract §9), gzip, signed as any request. */
async function importBeacons(url: string, app: App, file: string): Promise<void> {
  const bytes = gzipSync(fs.readFileSync(file));
  const p = `/v2/apps/${app.app_key}/beacons/import`;
  const ts = String(Math.floor(Date.now() / 1000));
  const res = await fetch(url + p, {
    method: 'POST', body: bytes,
    headers: { 'x-app-key': app.app_key, 'x-timestamp': ts, 'x-signature': signature(app.app_secret, ts, 'POST', p, bodySha256(bytes)), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
  });
  const out = await res.json() as { created: number; updated: number; errors: unknown[] };
  if (res.status !== 200 || out.errors.length) throw new Error(`beacon import: ${res.status} ${JSON.stringify(out).slice(0, 500)}`);
  say(`imported ${out.created} beacons (${out.updated} updated) from ${file}`);
}

async function createApp(url: string): Promise<App> {
  const res = await fetch(url + '/admin/apps', {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench accuracy', delivery: { method: 'sync' } }),
  });
  if (res.status !== 201) throw new Error(`create app: ${res.status} ${await res.text()}`);
  return res.json() as Promise<App>;
}

/** Contract §1: HMAC-SHA256 over "timestamp\nmethod\npath\nsha256(body bytes)". */
async function detect(url: string, app: App, json: string): Promise<unknown> {
  const bytes = gzipSync(json);
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = signature(app.app_secret, ts, 'POST', '/v1/detect', bodySha256(bytes));
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url + '/v1/detect', {
        method: 'POST', body: bytes,
        headers: { 'x-app-key': app.app_key, 'x-timestamp': ts, 'x-signature': sig, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
    } catch (err) {
      // A kept-alive connection the server closed as idle (uWS: 10 s, reached on a loaded machine
      // between the admin call and the first detection) fails before the request is read: resend.
      if ((err as { cause?: { code?: string } }).cause?.code === 'UND_ERR_SOCKET' && attempt < 3) continue;
      throw err;
    }
    const text = await res.text();
    if ((res.status === 429 || res.status === 503) && attempt < 20) { await new Promise((r) => setTimeout(r, 200 * (attempt + 1))); continue; }
    try { return JSON.parse(text); } catch { return { result: 'ERROR', status: res.status, text }; }
  }
}

/** What `vdsim score` prints (its README, "Scoring"), the fields the tables show. */
type Score = { mode: 'structured'; top1: number; top3: number; top5: number; ece: number | null; transit_without_venue: number | null }
  | { mode: 'unstructured'; precision: number; recall: number; venue_top1_of_found: number; start_error_median_s: number | null };

// The accuracy section's two tables (docs/performance.md); their `target` column is kept by hand.
const STRUCTURED = ['Set', 'top1', 'top3', 'top5', 'ECE', 'transit without venue', 'measured'];
const UNSTRUCTURED = ['Unstructured set', 'precision', 'recall (≥ 5 min)', 'top1 of found', 'start error median', 'measured'];

function writeRow(s: Score): void {
  const f = (x: number | null) => (x === null ? '–' : x.toFixed(3));
  if (s.mode === 'structured') {
    writePerformanceRow('accuracy', STRUCTURED, { Set: setName, top1: f(s.top1), top3: f(s.top3), top5: f(s.top5), ECE: f(s.ece), 'transit without venue': f(s.transit_without_venue) });
  } else {
    writePerformanceRow('accuracy', UNSTRUCTURED, { 'Unstructured set': setName, precision: f(s.precision), 'recall (≥ 5 min)': f(s.recall),
      'top1 of found': f(s.venue_top1_of_found), 'start error median': s.start_error_median_s === null ? '–' : `${Math.round(s.start_error_median_s)} s` });
  }
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-acc-'));
  const store = path.join(tmp, 'venues');
  say(`importing ${venuesFile} (jsonl) into ${store}`);
  const report = await runImport({ format: 'jsonl', file: venuesFile!, out: store, quiet: true });
  say(`imported ${report.venues} venues (${report.bad} bad rows, ${Object.keys(report.unmapped_categories).length} unmapped categories) in ${report.seconds} s`);
  const { url, proc } = await startServer(store, path.join(tmp, 'data'));
  const stop = () => { if (proc.exitCode === null) proc.kill('SIGTERM'); };
  process.on('exit', stop);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => { stop(); process.exit(130); });
  try {
    const app = await createApp(url);
    const beacons = path.join(requestsDir!, 'beacons.jsonl');
    if (fs.existsSync(beacons)) await importBeacons(url, app, beacons);
    const file = ['requests.jsonl', 'requests.jsonl.gz'].map((f) => path.join(requestsDir!, f)).find((f) => fs.existsSync(f));
    if (!file || file.endsWith('.gz')) throw new Error(`${requestsDir}/requests.jsonl not found (gzip: unpack it first)`);
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
    // File order, at most `concurrency` in flight, and a user's request waits for that user's previous one.
    const results = arg('results') ?? path.join(tmp, 'results.jsonl');
    const answers: string[] = new Array(lines.length);
    const lastOfUser = new Map<string, Promise<void>>();
    const inFlight = new Set<Promise<void>>();
    let done = 0, errors = 0;
    const t0 = Date.now();
    let lastSay = t0;
    for (let i = 0; i < lines.length; i++) {
      const { body } = JSON.parse(lines[i]) as Line;
      const user = body.advertising_id || body.user_id || `anon-${i}`;
      const json = JSON.stringify(body);
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      const before = lastOfUser.get(user) ?? Promise.resolve();
      const p: Promise<void> = before.then(async () => {
        const response = await detect(url, app, json) as { result?: string };
        if (response?.result !== 'SUCCESS') errors++;
        answers[i] = JSON.stringify({ request_id: body.request_id, response });
        done++;
        if (Date.now() - lastSay > 5000) {
          lastSay = Date.now();
          say(`${done}/${lines.length} requests, ${(done / ((lastSay - t0) / 1000)).toFixed(0)} req/s, ${errors} not SUCCESS`);
        }
      });
      lastOfUser.set(user, p);
      inFlight.add(p);
      void p.finally(() => { inFlight.delete(p); if (lastOfUser.get(user) === p) lastOfUser.delete(user); });
    }
    await Promise.all(inFlight);
    fs.writeFileSync(results, answers.join('\n') + '\n');
    say(`${done} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${errors} not SUCCESS; results in ${results}`);
    const score = execFileSync(process.execPath, [vdsim, 'score', '--truth', requestsDir!, '--results', results], { encoding: 'utf8' });
    process.stdout.write(score);
    writeRow(JSON.parse(score) as Score);
  } finally {
    stop();
    if (!arg('results')) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
