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
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../src/venues/import/build.js';
import { writePerformanceRow } from './lib/perf-doc.js';
import { benchFlags, die } from '../src/devkit/flags.js';
import { VDSIM } from '../src/devkit/vdsim.js';
import { createApp, detect, importBeacons, startServer, type App, type Line } from '../src/devkit/accuracy/server.js';
import { chooseVisits, readTruth, sendFeedback, truthWithout, type FeedbackTally } from '../src/devkit/accuracy/feedback.js';

const USAGE = 'npm run bench:accuracy -- --venues V.jsonl[.gz] --requests DIR [--name SET] [--results FILE] [--vdsim PATH] [--workers N] [--concurrency N] [--feedback FRACTION] [--no-doc]';
// The kit's strict reader: a mistyped flag exits 2 naming it instead of measuring the defaults.
const flag = benchFlags({
  venues: 'string', requests: 'string', name: 'string', results: 'string', vdsim: 'string', workers: 'string', concurrency: 'string',
  feedback: 'string', 'no-doc': 'boolean',
}, USAGE);
const arg = (name: 'name' | 'results' | 'workers'): string | undefined => (flag.has(name) ? flag.str(name, '') : undefined);
const say = (msg: string): void => { process.stderr.write(`[bench:accuracy] ${msg}\n`); };

const venuesFile = flag.str('venues', '');
const requestsDir = flag.str('requests', '');
if (!venuesFile || !requestsDir) die(`usage: ${USAGE}`);
const vdsim = flag.has('vdsim') ? path.resolve(flag.str('vdsim', '')) : VDSIM;
const concurrency = Math.max(1, flag.num('concurrency', 4));
const setName = arg('name') ?? path.basename(path.resolve(requestsDir));
const feedbackShare = flag.has('feedback') ? flag.num('feedback', 0) : null;
if (feedbackShare !== null && !(feedbackShare > 0 && feedbackShare <= 1)) die('--feedback takes a share of visits in (0, 1]');

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

/** Serves `store` on a fresh data dir, replays the set, and answers the results file. `chosen`: visits to give the true answer as feedback. */
async function replay(store: string, dataDir: string, results: string, chosen?: ReadonlyMap<string, string>): Promise<{ results: string; tally: FeedbackTally }> {
  const { url, proc } = await startServer(store, dataDir, arg('workers'));
  const stop = () => { if (proc.exitCode === null) proc.kill('SIGTERM'); };
  process.on('exit', stop);
  const tally: FeedbackTally = { confirm: 0, wrong_venue: 0, refused: 0 };
  try {
    const app: App = await createApp(url);
    const beacons = path.join(requestsDir!, 'beacons.jsonl');
    if (fs.existsSync(beacons)) await importBeacons(url, app, beacons);
    const file = ['requests.jsonl', 'requests.jsonl.gz'].map((f) => path.join(requestsDir!, f)).find((f) => fs.existsSync(f));
    if (!file || file.endsWith('.gz')) throw new Error(`${requestsDir}/requests.jsonl not found (gzip: unpack it first)`);
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
    // File order, at most `concurrency` in flight, and a user's request waits for that user's previous one (and its feedback).
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
        else if (chosen?.size) await sendFeedback(url, app, body, response as Parameters<typeof sendFeedback>[3], chosen, tally);
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
    say(`${done} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${errors} not SUCCESS${chosen ? `, feedback ${JSON.stringify(tally)}` : ''}; results in ${results}`);
    return { results, tally };
  } finally {
    stop();
  }
}

const scoreOf = (truthDir: string, results: string): Score =>
  JSON.parse(execFileSync(process.execPath, [vdsim, 'score', '--truth', truthDir, '--results', results], { encoding: 'utf8' })) as Score;

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-acc-'));
  const store = path.join(tmp, 'venues');
  say(`importing ${venuesFile} (jsonl) into ${store}`);
  const report = await runImport({ format: 'jsonl', file: venuesFile!, out: store, quiet: true });
  say(`imported ${report.venues} venues (${report.bad} bad rows, ${Object.keys(report.unmapped_categories).length} unmapped categories) in ${report.seconds} s`);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));
  try {
    const results = arg('results') ?? path.join(tmp, 'results.jsonl');
    if (feedbackShare === null) {
      await replay(store, path.join(tmp, 'data'), results);
      const score = scoreOf(requestsDir!, results);
      process.stdout.write(JSON.stringify(score, null, 2) + '\n');
      writeRow(score);
      return;
    }
    // Feedback: the same set twice, on fresh servers, without and with; both scored on the visits given none.
    const chosen = chooseVisits(readTruth(requestsDir!), feedbackShare);
    say(`feedback on ${chosen.size} visits (share ${feedbackShare}); a run without, then one with`);
    const without = await replay(store, path.join(tmp, 'data-without'), results.replace(/(\.jsonl)?$/, '-without.jsonl'));
    const withFb = await replay(store, path.join(tmp, 'data-with'), results, chosen);
    const others = truthWithout(requestsDir!, chosen, path.join(tmp, 'truth-others'));
    const a = scoreOf(others, without.results), b = scoreOf(others, withFb.results);
    process.stdout.write(JSON.stringify({ feedback: feedbackShare, given: withFb.tally, without: a, with: b }, null, 2) + '\n');
    if (a.mode === 'structured' && b.mode === 'structured') writeFeedbackRow(feedbackShare, withFb.tally, a, b);
  } finally {
    if (!arg('results')) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const FEEDBACK = ['Feedback set', 'share given feedback', 'visits scored', 'top1 without', 'top1 with', 'top1 gain', 'top3 without', 'top3 with', 'ECE without', 'ECE with', 'measured'];

function writeFeedbackRow(share: number, given: FeedbackTally, a: Extract<Score, { mode: 'structured' }>, b: Extract<Score, { mode: 'structured' }>): void {
  const f = (x: number | null) => (x === null ? '–' : x.toFixed(3));
  writePerformanceRow('accuracy-feedback', FEEDBACK, {
    'Feedback set': setName, 'share given feedback': `${share} (${given.confirm} confirm, ${given.wrong_venue} wrong_venue)`, 'visits scored': String((a as { visit_events?: number }).visit_events ?? ''),
    'top1 without': f(a.top1), 'top1 with': f(b.top1), 'top1 gain': (b.top1 - a.top1 >= 0 ? '+' : '') + (b.top1 - a.top1).toFixed(3),
    'top3 without': f(a.top3), 'top3 with': f(b.top3), 'ECE without': f(a.ece), 'ECE with': f(b.ece),
  });
}

main().catch((err) => { console.error(err); process.exit(1); });
