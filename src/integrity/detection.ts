/**
 * The checks where detection runs (detect/structured.ts, unstructured.ts): against the user's
 * latest position kept in their record (`j`, read and written in the same step as their
 * history, in either engine), the app's learned network places and the request's server time.
 * And what a visit that did not pass must not do: teach, or enter the history.
 */
import type { Signal } from '../schemas/detect-request.js';
import type { ApObservation } from '../learned/tables.js';
import type { DetectContext } from '../detect/context.js';
import { recordPlace, type UserRecord, type VisitTimes } from '../users/records.js';
import { answeredOf, forgetPlaceVisit } from '../users/answered.js';
import { checkSignals, type Checks, type LastPosition } from './check.js';
import { userTag } from './networks.js';
import { timesOf } from '../time/signal-times.js';

/** Checks one request's signals (in request order) for `user`, whose record is `rec`; tells the pipeline (ctx.onChecks). */
export function checkRequest(signals: readonly Signal[], rec: UserRecord | undefined, ctx: DetectContext, user: string | null): Checks {
  const app = ctx.app.app_key, users = ctx.users;
  const c = checkSignals({
    signals, times: timesOf(signals), previous: rec?.j as LastPosition | undefined, now: ctx.now, self: userTag(user),
    places: (bssids) => users.apPlaces(app, bssids),
  });
  ctx.onChecks?.(c);
  return c;
}

/** Keeps the user's latest position for the next request's `jumped`. */
export function keepLast(rec: UserRecord, c: Checks): void {
  if (c.last) rec.j = c.last.map((x, i) => (i < 2 ? Math.round(x * 1e6) / 1e6 : Math.round(x))) as LastPosition;
}

/** What a confident stay teaches, with the user's tag on each located network (integrity/networks.ts witnesses). */
export function tagged(aps: ApObservation[], user: string | null): ApObservation[] {
  const tag = userTag(user);
  if (tag) for (const o of aps) if (o.at) o.at = [o.at[0], o.at[1], o.at[2], tag];
  return aps;
}

/** A visit's first and last visit times as the history without it answers them: recorded on a copy. */
export function timesWithout(rec: UserRecord, placeId: string, visitId: string, start: number): VisitTimes {
  const e = rec.h[placeId];
  return recordPlace({ h: e ? { [placeId]: { ...e } } : {}, r: [] }, placeId, visitId, start);
}

/**
 * A stream stay answered before, passed, and now flagged (a later signal of it was): out of the
 * history again, and marked, so that feedback on it is refused (contract §10: 404).
 */
export function distrust(rec: UserRecord, visitId: string, flags: number): void {
  const a = answeredOf(rec, visitId);
  if (!a || a.g) return;
  if (a.v) forgetPlaceVisit(rec, a.v, a.s);
  a.v = '';
  a.g = flags;
}
