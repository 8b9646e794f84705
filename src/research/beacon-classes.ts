/**
 * Where beacons change the answers: scored visits of a vdsim --beacons set split by what the
 * stay's device heard of the app's registry (beacons.jsonl), and for each class, in each results
 * file (offline.js --results), top1 and the mean top1 probability (calibration by class).
 *
 *   node dist/src/research/beacon-classes.js --requests DIR RESULTS.jsonl [RESULTS.jsonl …]
 *
 * Classes: the device does not range (no beacon_scan), ranged and heard its own venue's registered
 * beacon, ranged and heard only a neighbour's, ranged and heard no registered beacon. Those are
 * known only with the truth; calibration is a property of the answer, so the ranging visits are
 * also split by what the answer's venue did (its registered beacon heard, registered but unheard,
 * none registered), each with the share right among answers at least 0.9 likely.
 */
import fs from 'node:fs';
import path from 'node:path';
import { die, flags } from './flags.js';

const USAGE = 'beacon-classes --requests DIR RESULTS.jsonl [RESULTS.jsonl …]';
const { values, rest: files } = flags(['requests'], USAGE);
if (!values.requests || files.length === 0) die(`usage: ${USAGE}`);
const dir = values.requests;
const lines = (f: string): any[] => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

const registry = new Map<string, string>(lines(path.join(dir, 'beacons.jsonl')).map((b) => [`${b.uuid}:${b.major}:${b.minor}`.toLowerCase(), String(b.venue_id)]));
const truth = lines(path.join(dir, 'truth.jsonl')).filter((t) => t.type === 'visit' && t.scored);
const beaconed = new Set(registry.values());
const heard = new Map<string, { venues: Set<string>; ranged: number }>();
for (const q of lines(path.join(dir, 'requests.jsonl'))) {
  const r = q.body ?? q;
  for (const ev of r.events ?? []) {
    const venues = new Set<string>();
    let ranged = 0;
    for (const s of ev.data ?? []) {
      if (!s.beacon_scan) continue;
      ranged++;
      for (const e of s.beacon_scan) { const v = registry.get(`${e.uuid}:${e.major}:${e.minor}`.toLowerCase()); if (v) venues.add(v); }
    }
    heard.set(`${r.request_id}|${ev.event_id}`, { venues, ranged });
  }
}

const CLASSES = ['does not range', 'heard its own venue', 'heard only a neighbour', 'heard no registered'];
const ANSWER = ["answer's beacon heard", "answer's beacon not heard", 'answer has no beacon'];
for (const f of files) {
  const answers = new Map<string, { place_id?: string; place?: { venues?: Array<{ probability: number }> } }>();
  for (const r of lines(f)) for (const d of r.response?.data ?? []) answers.set(`${r.request_id}|${d.event_id}`, d.visit);
  const by = CLASSES.map(() => ({ n: 0, right: 0, p: 0 }));
  for (const t of truth) {
    const k = `${t.request_id}|${t.event_id}`, h = heard.get(k);
    const c = !h || h.ranged === 0 ? 0 : h.venues.has(String(t.venue_id)) ? 1 : h.venues.size ? 2 : 3;
    const v = answers.get(k);
    by[c].n++;
    by[c].p += v?.place?.venues?.[0]?.probability ?? 0;
    if (v?.place_id === String(t.venue_id)) by[c].right++;
  }
  const byAnswer = ANSWER.map(() => ({ n: 0, right: 0, p: 0, sure: 0, sureRight: 0, sureP: 0 }));
  for (const t of truth) {
    const k = `${t.request_id}|${t.event_id}`, h = heard.get(k), v = answers.get(k);
    if (!h || h.ranged === 0 || !v?.place_id) continue;
    const b = byAnswer[h.venues.has(v.place_id) ? 0 : beaconed.has(v.place_id) ? 1 : 2];
    const p = v.place?.venues?.[0]?.probability ?? 0, right = v.place_id === String(t.venue_id) ? 1 : 0;
    b.n++; b.p += p; b.right += right;
    if (p >= 0.9) { b.sure++; b.sureRight += right; b.sureP += p; }
  }
  const r3 = (a: number, b: number): number => +(a / (b || 1)).toFixed(3);
  console.log(JSON.stringify({
    results: path.basename(f),
    classes: Object.fromEntries(CLASSES.map((c, i) => [c, { visits: by[i].n, top1: r3(by[i].right, by[i].n), mean_p: r3(by[i].p, by[i].n) }])),
    ranging_by_answer: Object.fromEntries(ANSWER.map((c, i) => { const b = byAnswer[i]; return [c, { visits: b.n, top1: r3(b.right, b.n), mean_p: r3(b.p, b.n), sure: b.sure, sure_top1: r3(b.sureRight, b.sure), sure_mean_p: r3(b.sureP, b.sure) }]; })),
  }));
}
