/**
 * Contract §12's checks on simulated traffic, through the real server (issue 43):
 *
 *   npm run bench:integrity -- --venues V.jsonl[.gz] --requests DIR [--name SET] [--share 0.3] [--seed s] [--concurrency 4] [--no-doc]
 *
 * One server, one sync app, two phases (bench:accuracy's order: file order, a user's request
 * after their previous one):
 * 1. Honest: the vdsim set DIR as it is. The share of its visits flagged, each flag's share
 *    (target ≤ 0.2 %); and, from the answers, which networks this traffic established
 *    (integrity-spoof.ts Networks). This is also the learning: a service that has served the
 *    city's honest traffic for a while.
 * 2. Spoofers: then a share of the set's users (by a hash of their id and --seed), kinds in turn,
 *    send their requests again under new ids, altered as integrity-spoof.ts describes (teleport,
 *    mocked, wifi). Each kind's detection rate is over the spoofed visits the check can see by
 *    its definition: teleports that are jumps by §12's rule, wifi spoofs that hear a network
 *    established by three other users. The others are reported apart (with what caught them
 *    anyway), never dropped from the table. Target: ≥ 99 % of each kind.
 * Each run sets its set's rows in docs/performance.md (`--no-doc`: not at all).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../src/venues/import/build.js';
import { writePerformanceRow } from './lib/perf-doc.js';
import { benchFlags, die } from '../src/devkit/flags.js';
import { createApp, detect, startServer, type App } from '../src/devkit/accuracy/server.js';
import { EXPECTED, JumpOracle, KINDS, kindOf, Networks, Spoofer, type Body, type Kind, type Signal } from './integrity-spoof.js';

const USAGE = 'npm run bench:integrity -- --venues V.jsonl[.gz] --requests DIR [--name SET] [--share 0.3] [--seed s] [--concurrency 4] [--no-doc]';
const flag = benchFlags({ venues: 'string', requests: 'string', name: 'string', share: 'string', seed: 'string', concurrency: 'string', 'no-doc': 'boolean' }, USAGE);
const say = (msg: string): void => { process.stderr.write(`[bench:integrity] ${msg}\n`); };
const venuesFile = flag.str('venues', ''), dir = flag.str('requests', '');
if (!venuesFile || !dir) die(`usage: ${USAGE}`);
const share = flag.num('share', 0.3), concurrency = Math.max(1, flag.num('concurrency', 4)), seed = flag.str('seed', 's');
const setName = flag.has('name') ? flag.str('name', '') : path.basename(path.resolve(dir));

interface Answer { event_id?: string; visit: { id: string; event_type: string; is_confirmed: boolean; start_time: string; end_time?: string; integrity?: { flags: string[] } } }
const userOf = (b: Body, i: number) => b.advertising_id || b.user_id || `anon-${i}`;
const signalsOf = (b: Body): Signal[] => b.events ? b.events.flatMap((e) => e.data) : b.data ?? [];

/** Each user's requests in file order, one at a time, users side by side up to `concurrency`. */
async function replay(bodies: Array<{ user: string; body: Body }>, send: (user: string, body: Body) => Promise<void>): Promise<void> {
  const lastOfUser = new Map<string, Promise<void>>(), inFlight = new Set<Promise<void>>();
  for (const { user, body } of bodies) {
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    const p: Promise<void> = (lastOfUser.get(user) ?? Promise.resolve()).then(() => send(user, body));
    lastOfUser.set(user, p);
    inFlight.add(p);
    void p.finally(() => { inFlight.delete(p); if (lastOfUser.get(user) === p) lastOfUser.delete(user); });
  }
  await Promise.all(inFlight);
}

/** The visits of an answer with the signals behind each: its event's, or (a stream) the user's sent signals within its time. */
function visitsOf(r: unknown, body: Body, sent: Signal[]): Array<{ a: Answer; signals: Signal[]; start: number; end: number }> {
  const out = [];
  for (const a of (r as { data?: Answer[] }).data ?? []) {
    if (a.visit.event_type !== 'visit') continue;
    const start = Date.parse(a.visit.start_time), end = a.visit.end_time ? Date.parse(a.visit.end_time) : Infinity;
    const ev = body.events?.find((e) => e.event_id === a.event_id);
    const signals = ev ? ev.data : sent.filter((s) => { const t = Date.parse(s.timestamp); return t >= start && t <= end; });
    out.push({ a, signals, start, end });
  }
  return out;
}

interface Count { n: number; its: number; any: number }
const count = (): Count => ({ n: 0, its: 0, any: 0 });
const pct = (n: number, d: number) => (d ? `${(100 * n / d).toFixed(2)} %` : '–');
const FLAGS = ['jumped', 'inaccurate', 'clock_skew', 'wifi_mismatch', 'mocked'];

async function honestPhase(url: string, app: App, lines: Array<{ user: string; body: Body }>, networks: Networks) {
  let visits = 0, flagged = 0;
  const byFlag: Record<string, number> = {}, sent = new Map<string, Signal[]>();
  await replay(lines, async (user, body) => {
    const mine = sent.get(user) ?? [];
    if (!body.events) { mine.push(...signalsOf(body)); sent.set(user, mine); }
    const r = await detect(url, app, JSON.stringify(body));
    for (const { a, signals } of visitsOf(r, body, mine)) {
      const flags = a.visit.integrity?.flags ?? [];
      visits++; if (flags.length) flagged++;
      for (const f of flags) byFlag[f] = (byFlag[f] ?? 0) + 1;
      if (!flags.length && a.visit.is_confirmed) networks.taught(user, signals);
    }
  });
  return { visits, flagged, shares: FLAGS.map((f) => `${f} ${pct(byFlag[f] ?? 0, visits)}`).join(', ') };
}

/** Per kind: `seen` the spoofed visits its check can see by definition, `apart` the others (by why), each with its own flag and any flag. */
async function spoofPhase(url: string, app: App, lines: Array<{ user: string; body: Body }>, networks: Networks) {
  const spoofers = new Map<string, Spoofer>();
  const seen = { teleport: count(), mocked: count(), wifi: count() } as Record<Kind, Count>;
  const apart: Record<string, Count> = { 'teleport, not a jump by §12': count(), 'wifi, networks nobody else established': count(), 'wifi, no network heard': count() };
  const jumps = new JumpOracle(), jumped = new Set<Signal>(), sent = new Map<string, Signal[]>();
  const last = new Map<string, { kind: Kind; bucket: Count; flags: string[] }>();
  const mine = lines.filter((l) => kindOf(l.user, share, seed));
  await replay(mine, async (user, original) => {
    let sp = spoofers.get(user);
    if (!sp) spoofers.set(user, (sp = new Spoofer(user, kindOf(user, share, seed)!, seed)));
    const body = sp.body(original);
    for (const s of jumps.jumps(user, signalsOf(body))) jumped.add(s);
    const all = sent.get(user) ?? [];
    if (!body.events) { all.push(...signalsOf(body)); sent.set(user, all); }
    const r = await detect(url, app, JSON.stringify(body));
    for (const { a, signals, start, end } of visitsOf(r, body, all)) {
      if (!sp.spoofed(a.event_id, start, end)) continue;
      const k = sp.kind;
      let bucket = seen[k];
      if (k === 'teleport' && !signals.some((s) => jumped.has(s))) bucket = apart['teleport, not a jump by §12'];
      if (k === 'wifi') {
        const reach = networks.reach(signals, user);
        if (reach !== 'detectable') bucket = apart[reach === 'none' ? 'wifi, no network heard' : 'wifi, networks nobody else established'];
      }
      // A stream stay reported again counts once, as last reported (its flags are all its signals').
      last.set(`${user}\u0000${a.visit.id}`, { kind: k, bucket, flags: a.visit.integrity?.flags ?? [] });
    }
  });
  for (const { kind, bucket, flags } of last.values()) {
    bucket.n++;
    if (flags.includes(EXPECTED[kind])) bucket.its++;
    if (flags.length) bucket.any++;
  }
  return { seen, apart, users: spoofers.size };
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-integrity-'));
  const { url, proc } = await (async () => {
    const store = path.join(tmp, 'venues');
    const r = await runImport({ format: 'jsonl', file: venuesFile, out: store, quiet: true });
    say(`imported ${r.venues} venues`);
    return startServer(store, path.join(tmp, 'data'));
  })();
  const stop = () => { if (proc.exitCode === null) proc.kill('SIGTERM'); };
  process.on('exit', stop);
  try {
    const app = await createApp(url);
    const lines = fs.readFileSync(path.join(dir, 'requests.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
      .map((l, i) => { const body = (JSON.parse(l) as { body: Body }).body; return { user: userOf(body, i), body }; });
    const networks = new Networks();
    const honest = await honestPhase(url, app, lines, networks);
    say(`honest: ${honest.visits} visits, ${pct(honest.flagged, honest.visits)} flagged (${honest.shares})`);
    writePerformanceRow('integrity', ['Honest set', 'visits', 'flagged', 'by flag', 'target', 'measured'],
      { 'Honest set': setName, visits: String(honest.visits), flagged: pct(honest.flagged, honest.visits), 'by flag': honest.shares, target: '≤ 0.2 %' });
    const run = await spoofPhase(url, app, lines, networks);
    say(`spoofers: ${run.users} users (share ${share}, seed ${seed})`);
    const cols = ['Set, spoof', 'spoofed visits', 'its flag', 'any flag', 'target', 'measured'];
    for (const k of KINDS) {
      const c = run.seen[k];
      const what = k === 'teleport' ? 'teleport, a jump by §12' : k === 'wifi' ? 'wifi, hears an established network' : 'mocked';
      say(`${what}: ${c.n} visits, ${pct(c.its, c.n)} ${EXPECTED[k]}, ${pct(c.any, c.n)} any flag`);
      writePerformanceRow('integrity-spoofed', cols, { 'Set, spoof': `${setName}, seed ${seed}: ${what} (${EXPECTED[k]})`, 'spoofed visits': String(c.n), 'its flag': `${pct(c.its, c.n)} (${c.its})`, 'any flag': pct(c.any, c.n), target: '≥ 99 %' });
    }
    for (const [what, c] of Object.entries(run.apart)) {
      say(`apart, ${what}: ${c.n} visits, ${pct(c.its, c.n)} its flag, ${pct(c.any, c.n)} any flag`);
      writePerformanceRow('integrity-spoofed', cols, { 'Set, spoof': `${setName}, seed ${seed}: ${what} (undetectable by its flag's definition)`, 'spoofed visits': String(c.n), 'its flag': `${pct(c.its, c.n)} (${c.its})`, 'any flag': pct(c.any, c.n), target: '–' });
    }
  } finally {
    stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
