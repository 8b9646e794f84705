/**
 * Unstructured requests: the signals continue the user's stream. A stay found in it is reported
 * once it has lasted the app's confirmation dwell (confirmed) or has ended (with its end time,
 * the same id when reported before, and unconfirmed when it ended before the dwell). All of it
 * runs inside the user's LMDB transaction, so two uploads of one user handled at once by two
 * workers cannot both open (or report) one stay.
 */
import type { UnstructuredRequest } from '../schemas/detect-request.js';
import type { SyncItem } from '../schemas/visit.js';
import type { ApObservation } from '../learned/tables.js';
import { addStay, emptyRecord, keptPlacesOf, recordPlace, setStream, stayCentresOf, stayLabelsOf, streamOf, type UserRecord } from '../users/records.js';
import { learnPlaces, userPlaceAt } from '../users/places.js';
import type { DetectContext } from './context.js';
import { fixesOf } from './fixes.js';
import { clusterFixes } from './cluster.js';
import { advance, initialState, MIN_STAY_MS, openStay, type StayReport } from './stream.js';
import { assess, apsToLearn, homeShares, learnFromStay } from './assess.js';
import { buildVisit, visitId } from './visit.js';
import { userOf } from '../users/identity.js';
import { rememberAnswered } from '../users/answered.js';
import { answeredVisit } from './answered-visit.js';
import { checkRequest, distrust, keepLast, tagged, timesWithout } from '../integrity/detection.js';
import { gather } from '../integrity/evidence.js';
import { flagsOf, integrityOf } from '../integrity/flags.js';

export function detectUnstructured(body: UnstructuredRequest, ctx: DetectContext): SyncItem[] {
  const user = userOf(body);
  const run = (rec: UserRecord, learn: ApObservation[]): SyncItem[] => {
    const { state, ended } = advance(streamOf(rec) ?? initialState(), fixesOf(body.data), body.data, ctx.params.silence);
    setStream(rec, state);
    // Contract §12: the request's signals checked; a stay carries the flags of all its signals so far.
    const checks = checkRequest(body.data, user ? rec : undefined, ctx, user);
    keepLast(rec, checks);
    for (const e of ended) gather(e.cluster, checks);
    if (state.c) gather(state.c, checks);
    const confirmMs = ctx.app.confirm_dwell_s * 1000;
    // Every ended stay is a visit (unconfirmed when short); an app whose dwell is shorter than
    // MIN_STAY_MS has its own dwell as the bar.
    const reports: StayReport[] = ended.filter((e) => e.endMs! - e.startMs >= Math.min(confirmMs, MIN_STAY_MS));
    const current = openStay(state);
    if (current && !current.cluster.id && current.cluster.l - current.startMs >= confirmMs) reports.push(current);
    const items: SyncItem[] = [];
    for (const r of reports) {
      const c = r.cluster;
      if (!c.id) c.id = visitId(ctx.app.app_key, user ?? '', 'stream', c.f0);
      const f = clusterFixes(c);
      const endMs = r.endMs ?? c.l;
      const a = assess(ctx.venues, ctx.users, ctx.app.app_key, {
        fixes: f, from: 0, to: f.n, heard: c.w, checked: checks.heard, startMs: r.startMs, endMs, offsetMin: c.o, history: user ? stayCentresOf(rec) : undefined, labels: user ? stayLabelsOf(rec) : undefined,
        beacons: c.b, registry: ctx.beacons,
      }, ctx.params);
      if (!a) continue;
      // An open stay is reported only once it lasted the dwell; an ended one may be shorter.
      const confirmed = endMs - r.startMs >= confirmMs;
      // Without a user, a visit is its own first and last (contract §2).
      let times = { first: r.startMs, last: r.startMs };
      // The venue the history credits: the ranking's first, or what feedback on this visit said (none: no stop).
      // One that did not pass teaches nothing: not the history (its times as the history without it answers them), nor the tables.
      const flags = flagsOf(c.x ?? 0);
      const credited = user && a.ranked.length && !flags ? rememberAnswered(rec, answeredVisit(a, c.id, r.startMs)).v : '';
      if (user && a.ranked.length && flags) { distrust(rec, c.id, flags); times = timesWithout(rec, a.ranked[0].venue.id, c.id, r.startMs); }
      if (credited) {
        times = recordPlace(rec, credited, c.id, r.startMs);
        if (r.endMs !== null && confirmed && addStay(rec, c.id, a.centre.lat, a.centre.lon, a.centre.sigma, r.startMs, a.ranked)) {
          learnPlaces(rec, { lat: a.centre.lat, lon: a.centre.lon, startMs: r.startMs, endMs: r.endMs, offsetMin: c.o, ...homeShares(a.ranked) });
        }
      }
      if (r.endMs !== null && !flags) { learn.push(...tagged(apsToLearn(a, confirmed, ctx.params), user)); learnFromStay(a, confirmed, ctx.users, ctx.app.app_key, ctx.venues, ctx.params); }
      const stay = { id: c.id, startMs: r.startMs, endMs: r.endMs, offsetMin: c.o, confirmed,
        lat: a.centre.lat, lon: a.centre.lon, sigma: a.centre.sigma };
      const visit = buildVisit(stay, a.ranked, times, ctx.estimateAddress);
      // Contract §2: every visit of a user with an id says whether it is at their home or work.
      if (user) visit.user_place = userPlaceAt(keptPlacesOf(rec), a.centre.lat, a.centre.lon, { ...stay, endMs, ...homeShares(a.ranked) });
      visit.integrity = integrityOf(flags);
      items.push({ visit });
    }
    return items;
  };
  if (!user) {
    // No one to remember: the request is its own whole stream.
    const learn: ApObservation[] = [];
    const items = run(emptyRecord(), learn);
    ctx.users.learn(ctx.app.app_key, learn);
    return items;
  }
  return ctx.users.update(ctx.app.app_key, user, (rec) => {
    const learn: ApObservation[] = [];
    const items = run(rec, learn);
    return { record: rec, result: items, learn: { app: ctx.app.app_key, aps: learn } };
  });
}
