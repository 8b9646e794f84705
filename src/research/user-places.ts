/**
 * Issue 45's decomposition of a structured vdsim run (docs/ranking.md, "Home, work and repeat visits"):
 *
 *   node dist/src/research/user-places.js --requests DIR --results FILE [--venues V.jsonl.gz]
 *
 * joins the answers (results.jsonl of offline.js or bench:accuracy) with the simulator's truth and
 * prints, over scored visit events: top1 on repeat visits (the user's true venue visited before,
 * warm-up included) against first visits; top1 on visits to the user's home (their most visited
 * private home by the truth) and elsewhere; and `user_place` "home" on home visits (recall) and on
 * the other visits (false "home"). With the set's venues, what limits each figure: false "home" by
 * what the visit was (another private home at the very point of the user's home, another private
 * home, another kind of place, a user without a home in the truth); misses at home by whether the
 * answer was a home at the same point; misses on repeat visits by whether the answer was the same
 * wrong venue as at the user's previous visit there (the history repeating a mistake).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { die, flags } from './flags.js';

interface Truth { request_id: string; event_id: string; type: string; venue_id: string | null; user: string; kind: string | null; start: string; scored: boolean }
interface Answer { event_id: string; visit: { place_id: string | null; user_place?: string | null } }

const USAGE = 'user-places --requests DIR --results FILE [--venues V.jsonl.gz]';
const { values: opts } = flags(['requests', 'results', 'venues'], USAGE);
if (!opts.requests || !opts.results) die(`usage: ${USAGE}`);

const read = (file: string) => (file.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(file)).toString('utf8') : fs.readFileSync(file, 'utf8'));
const jsonl = <T>(file: string): T[] => read(file).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
const truth = jsonl<Truth>(path.join(opts.requests, 'truth.jsonl')).filter((t) => t.type === 'visit' && t.venue_id);
const answers = new Map<string, Answer['visit']>();
// offline.js writes {data, result}, bench:accuracy the synchronous response as served: the list is `data` in both.
for (const r of jsonl<{ request_id: string; response: { data?: Answer[] } }>(opts.results)) {
  for (const a of r.response?.data ?? []) if (a?.visit) answers.set(`${r.request_id}\u0000${a.event_id}`, a.visit);
}

// Each user's home: the private home they visit most (by the truth, warm-up included).
const homeVisits = new Map<string, Map<string, number>>();
for (const t of truth) {
  if (t.kind !== 'home') continue;
  const m = homeVisits.get(t.user) ?? new Map<string, number>();
  homeVisits.set(t.user, m.set(t.venue_id!, (m.get(t.venue_id!) ?? 0) + 1));
}
const homeOf = new Map<string, string>();
for (const [u, m] of homeVisits) homeOf.set(u, [...m].sort((a, b) => b[1] - a[1])[0][0]);

type Tally = { n: number; top1: number; home: number; work: number; missing: number };
const tally = (): Tally => ({ n: 0, top1: 0, home: 0, work: 0, missing: 0 });
const groups = { repeat: tally(), first: tally(), at_home: tally(), elsewhere: tally() };
// Venue positions, for "the same point" (Foursquare snaps homes: several ids at one coordinate).
const at = new Map<string, [number, number]>();
if (opts.venues) for (const v of jsonl<{ id: string; lat: number; lon: number }>(opts.venues)) at.set(v.id, [v.lat, v.lon]);
const samePoint = (a: string | null | undefined, b: string | null | undefined) => {
  const p = a ? at.get(a) : undefined, q = b ? at.get(b) : undefined;
  return !!p && !!q && Math.abs(p[0] - q[0]) < 1e-5 && Math.abs(p[1] - q[1]) < 1e-5;
};
const limits = { home_elsewhere: {} as Record<string, number>, misses_at_home: {} as Record<string, number>, misses_on_repeat: {} as Record<string, number> };
const count = (m: Record<string, number>, k: string) => { m[k] = (m[k] ?? 0) + 1; };
const seen = new Set<string>();
/** The answer at the user's latest visit to each true venue. */
const lastAnswer = new Map<string, string | null>();
for (const t of [...truth].sort((a, b) => Date.parse(a.start) - Date.parse(b.start))) {
  const key = `${t.user}\u0000${t.venue_id}`;
  const repeat = seen.has(key);
  seen.add(key);
  const v = answers.get(`${t.request_id}\u0000${t.event_id}`);
  const before = lastAnswer.get(key);
  if (v) lastAnswer.set(key, v.place_id);
  if (!t.scored || !v) continue;
  const atHome = homeOf.get(t.user) === t.venue_id;
  if (opts.venues) {
    const home = homeOf.get(t.user);
    if (!atHome && v.user_place === 'home') {
      count(limits.home_elsewhere, !home ? 'user_without_home' : samePoint(t.venue_id, home) ? 'home_at_same_point'
        : t.kind === 'home' ? 'other_private_home' : `other_${t.kind}`);
    }
    if (atHome && v.place_id !== t.venue_id) count(limits.misses_at_home, samePoint(v.place_id, t.venue_id) ? 'home_at_same_point' : 'elsewhere');
    if (repeat && v.place_id !== t.venue_id) count(limits.misses_on_repeat, v.place_id === before ? 'same_wrong_answer_as_before' : 'other');
  }
  for (const g of [repeat ? groups.repeat : groups.first, atHome ? groups.at_home : groups.elsewhere]) {
    g.n++;
    if (v.place_id === t.venue_id) g.top1++;
    if (v.user_place === 'home') g.home++;
    else if (v.user_place === 'work') g.work++;
    else if (v.user_place === undefined) g.missing++;
  }
}
const r3 = (x: number, n: number) => (n ? Number((x / n).toFixed(3)) : null);
const out: Record<string, unknown> = {};
for (const [name, g] of Object.entries(groups)) {
  out[name] = { visits: g.n, top1: r3(g.top1, g.n), user_place_home: r3(g.home, g.n), user_place_work: r3(g.work, g.n), no_user_place: r3(g.missing, g.n) };
}
out.repeat_minus_first_top1 = Number(((groups.repeat.top1 / groups.repeat.n) - (groups.first.top1 / groups.first.n)).toFixed(3));
if (opts.venues) out.limits = limits;
console.log(JSON.stringify(out, null, 1));
