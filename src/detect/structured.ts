/** Structured requests: each event is a stay (or a transit) whose bounds the caller already knows. */
import type { StructuredRequest } from '../schemas/detect-request.js';
import type { SyncItem } from '../schemas/visit.js';
import type { ApObservation } from '../learned/tables.js';
import { addStay, keptPlacesOf, recordPlace, stayCentresOf, stayLabelsOf, type VisitTimes } from '../users/records.js';
import { learnPlaces, userPlaceAt } from '../users/places.js';
import type { DetectContext } from './context.js';
import { fixesOf } from './fixes.js';
import { wifiOf } from './evidence/wifi.js';
import { beaconsOf } from './evidence/beacons.js';
import { parseStamp } from '../time/stamp.js';
import { assess, apsToLearn, homeShares, learnFromStay, looksStationary, type Assessment } from './assess.js';
import { buildVisit, transitVisit, unlocatedVisit, visitId, type StayFacts } from './visit.js';
import { legEnd, type LegEnd } from './leg.js';
import type { LegParams } from './params.js';
import { userOf } from '../users/identity.js';
import { rememberAnswered } from '../users/answered.js';
import { answeredVisit } from './answered-visit.js';
import { checkRequest, keepLast, tagged, timesWithout } from '../integrity/detection.js';
import { bitsIn } from '../integrity/evidence.js';
import { flagsOf, integrityOf } from '../integrity/flags.js';

type Event = StructuredRequest['events'][number];

/** The transits right before and after visit `e` in the request, as the ends of their legs (leg.ts). */
function legsOf(events: readonly Event[], e: number, startMs: number, endMs: number, leg: LegParams): LegEnd[] | undefined {
  let out: LegEnd[] | undefined;
  const before = events[e - 1], after = events[e + 1];
  if (before?.type === 'transit') {
    const t = parseStamp(before.end_time).ms;
    const l = Math.abs(startMs - t) <= leg.maxGapS * 1000 ? legEnd(fixesOf(before.data), t, 'before', leg) : null;
    if (l) (out ??= []).push(l);
  }
  if (after?.type === 'transit') {
    const t = parseStamp(after.start_time).ms;
    const l = Math.abs(t - endMs) <= leg.maxGapS * 1000 ? legEnd(fixesOf(after.data), t, 'after', leg) : null;
    if (l) (out ??= []).push(l);
  }
  return out;
}

export function detectStructured(body: StructuredRequest, ctx: DetectContext): SyncItem[] {
  const user = userOf(body);
  const rec0 = user ? ctx.users.read(ctx.app.app_key, user) : undefined;
  const history = stayCentresOf(rec0), labels = stayLabelsOf(rec0);
  const out: Array<{ item: SyncItem; stay?: StayFacts; a?: Assessment }> = [];
  const learn: ApObservation[] = [];
  // Contract §12: the request's signals checked (against the user's latest position before them);
  // each event carries its own signals' flags, and one that did not pass teaches nothing.
  const checks = checkRequest(body.events.flatMap((ev) => ev.data), rec0, ctx, user);
  const evidence: number[] = [], flagged = new Set<string>();
  for (let e = 0, from = 0; e < body.events.length; e++) {
    const ev = body.events[e];
    const first = from;
    evidence.push(bitsIn(checks, from, from + ev.data.length));
    from += ev.data.length;
    const start = parseStamp(ev.start_time), end = parseStamp(ev.end_time);
    const id = visitId(ctx.app.app_key, user ?? '', ev.event_id, start.ms);
    if (ev.type === 'transit') {
      out.push({ item: { event_id: ev.event_id, visit: transitVisit(id, start.ms, end.ms, start.offsetMin) } });
      continue;
    }
    // Before the visit's own fixes: fixesOf reuses one buffer.
    const legs = legsOf(body.events, e, start.ms, end.ms, ctx.params.leg);
    const fixes = fixesOf(ev.data);
    const a = assess(ctx.venues, ctx.users, ctx.app.app_key, {
      fixes, from: 0, to: fixes.n, heard: wifiOf(ev.data, 3, 16, checks.picks, first, checks.heard), checked: checks.heard, startMs: start.ms, endMs: end.ms, offsetMin: start.offsetMin, history, labels, legs,
      beacons: ctx.params.beacons.on ? beaconsOf(ev.data) : undefined, registry: ctx.beacons,
    }, ctx.params);
    if (!a) {
      // No fix and no located network: no position to name a place by.
      out.push({ item: { event_id: ev.event_id, visit: unlocatedVisit(id, start.ms, end.ms, start.offsetMin) } });
      continue;
    }
    const confirmed = (end.ms - start.ms) / 1000 >= ctx.app.confirm_dwell_s && looksStationary(a.centre);
    const stay: StayFacts = { id, startMs: start.ms, endMs: end.ms, offsetMin: start.offsetMin, confirmed,
      lat: a.centre.lat, lon: a.centre.lon, sigma: a.centre.sigma };
    if (flagsOf(evidence[e])) flagged.add(id);
    else {
      learn.push(...tagged(apsToLearn(a, confirmed, ctx.params), user));
      learnFromStay(a, confirmed, ctx.users, ctx.app.app_key, ctx.venues, ctx.params);
    }
    out.push({ item: { event_id: ev.event_id, visit: null as never }, stay, a });
  }
  const times = new Map<string, VisitTimes>();
  // What the user's home and work are after this request's stays were learned (users/places.ts).
  let places = keptPlacesOf(rec0);
  const visits = out.filter((o) => o.stay && o.a!.ranked.length);
  if (user && (visits.length || checks.last)) {
    ctx.users.update(ctx.app.app_key, user, (rec) => {
      keepLast(rec, checks);
      for (const o of visits) {
        const s = o.stay!, r = o.a!.ranked;
        // Not passed: its times as the history without it answers them, and the history stays without it.
        if (flagged.has(s.id)) { times.set(s.id, timesWithout(rec, r[0].venue.id, s.id, s.startMs)); continue; }
        // The venue the history credits: the ranking's first, or what feedback on this visit said (none: no stop).
        const credited = rememberAnswered(rec, answeredVisit(o.a!, s.id, s.startMs)).v;
        if (!credited) continue;
        times.set(s.id, recordPlace(rec, credited, s.id, s.startMs));
        if (s.confirmed && addStay(rec, s.id, s.lat, s.lon, s.sigma, s.startMs, r)) learnPlaces(rec, { ...s, endMs: s.endMs!, ...homeShares(r) });
      }
      places = keptPlacesOf(rec);
      return { record: rec, result: undefined, learn: { app: ctx.app.app_key, aps: learn } };
    });
  } else if (learn.length) ctx.users.learn(ctx.app.app_key, learn);
  for (const o of out) {
    if (!o.stay) continue;
    // Without a user, a visit is its own first and last (contract §2).
    const own = { first: o.stay.startMs, last: o.stay.startMs };
    o.item.visit = buildVisit(o.stay, o.a!.ranked, times.get(o.stay.id) ?? own, ctx.estimateAddress);
  }
  // Contract §2: every visit of a user with an id says whether it is at their home or work.
  if (user) for (const o of out) o.item.visit.user_place = o.stay ? userPlaceAt(places, o.stay.lat, o.stay.lon, { ...o.stay, endMs: o.stay.endMs!, ...homeShares(o.a!.ranked) }) : null;
  for (let e = 0; e < out.length; e++) out[e].item.visit.integrity = integrityOf(flagsOf(evidence[e]));
  return out.map((o) => o.item);
}
