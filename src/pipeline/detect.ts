/**
 * One detection request off the HTTP thread, in either state engine: inflate, parse and validate;
 * read the user's record, detect (pure, synchronous), commit what it changed and taught
 * (thread-state.ts); for a synchronous app, the answer serialised. Everything CPU-bound in a
 * request happens here; the Piscina worker (workers/detect.ts) is only its entry point. The venue
 * store is opened in place from the shared index. Embedded, a request never waits on a promise.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { asDwellError } from '../errors.js';
import { log } from '../log.js';
import { inflateSync } from '../http/body.js';
import { parseJson } from '../http/json-body.js';
import { validateDetect } from '../schemas/validate-detect.js';
import { openStore } from '../venues/store.js';
import { estimateAddress } from '../venues/address.js';
import { DEFAULT_PARAMS, detectStructured, detectUnstructured, type DetectContext } from '../detect/index.js';
import { deviceIdOf, userOf } from '../users/identity.js';
import type { Versions } from '../learned/cache.js';
import { asFixes, type Fix } from '../geofences/events.js';
import { fenceKind } from '../geofences/presence.js';
import { countryKind } from '../regions/presence.js';
import { placeKind } from '../place-triggers/presence.js';
import { placeView, withPlaces } from '../place-triggers/worker-source.js';
import type { SyncItem, SyncResponse } from '../schemas/visit.js';
import type { DetectTask } from './task.js';
import type { DetectOutcome, DetectResult, Tally } from '../schemas/detect-outcome.js';
import { threadState, type Maybe, type ThreadState } from './thread-state.js';
import { presenceAlone, presenceRun, type PresenceKind, type TriggerEvents } from '../users/presence.js';
import { hearsBeacons } from './thread-types.js';
import { Later } from './later.js';
import { stampOutcome } from '../integrity/stamp.js';
import type { Checks } from '../integrity/check.js';

const utf8 = new TextEncoder();

/**
 * The task function of one thread. `versions` keeps the thread's cache of learned values exact
 * (learned/cache.ts): shared by the workers of one process.
 */
export function detectTask(versions: Versions): (task: DetectTask) => Maybe<DetectResult> {
  // Named: bench:profile and bench:instructions find the task by this name.
  return function detectionTask(task) {
    try {
      const t = withPlaces(task, threadState(task, versions));
      // Outside a batch a commit is never a Later (thread-embedded.ts).
      const out = (t instanceof Promise ? t.then((s) => outcome(task, s) as Maybe<DetectOutcome>) : outcome(task, t)) as Maybe<DetectOutcome>;
      return out instanceof Promise ? out.then((o) => settle(task, o), (err) => failed(err)) : settle(task, out);
    } catch (err) {
      return failed(err);
    }
  };
}

/** The outcome as it crosses back to the HTTP thread: a synchronous app's answer as bytes, moved. */
export function settle(task: DetectTask, out: DetectOutcome): DetectResult {
  const r = answered(task, out);
  // Piscina moves the bytes (transfer list) instead of cloning them; the caller sees the value.
  return 'response' in r ? move({ [transferableSymbol]: [r.response.buffer], [valueSymbol]: r }) as unknown as DetectResult : r;
}

/** A synchronous app's outcome as its 200 body's bytes (a batch moves them all at once: batch.ts). */
export function answered(task: DetectTask, out: DetectOutcome): DetectResult {
  if (!out.ok || !task.sync) return out;
  const answer: SyncResponse = { data: out.items, geofence_events: out.geofence_events, place_events: out.place_events, region_events: out.region_events, result: 'SUCCESS' };
  const response = utf8.encode(JSON.stringify(answer));
  return { ok: true, kind: out.kind, tally: out.tally, response, user: out.user_info.device_id ?? (out.user_info.user_id || null) };
}

export function outcome(task: DetectTask, t: ThreadState): Maybe<DetectOutcome> | Later<DetectOutcome> {
  const body = parseJson(task.gzip ? inflateSync(task.body) : task.body);
  const valid = validateDetect(body, task.now);
  const app = task.app.app_key;
  const venues = openStore(task.store);
  const b = valid.body;
  const who = userOf(b);
  // Contract §12: the checks of the request's signals, as the run that was kept made them.
  let checks: Checks | undefined;
  // The app's beacons as the thread knows them when the run starts (in the cluster, after its copies caught up).
  const detect = () => {
    const ctx: DetectContext = { venues, users: t.users, estimateAddress, app: task.app, now: task.now, params: DEFAULT_PARAMS, beacons: t.beacons(app), onChecks: (c) => { checks = c; } };
    return valid.kind === 'structured' ? detectStructured(valid.body, ctx) : detectUnstructured(valid.body, ctx);
  };
  // Most apps have no fences: their requests' fixes are not gathered (parsed, sorted) at all.
  let fixes: readonly Fix[] | null = null;
  const fixesOf = () => (fixes ??= asFixes('events' in b ? b.events.flatMap((e) => e.data) : b.data));
  // The trigger kinds of the app (users/presence.ts): the fences as the thread knows them when
  // the presence is evaluated (in the cluster, after the record's read), countries when asked for.
  const kinds: PresenceKind[] = [fenceKind(() => t.fences(app), fixesOf, task.now)];
  if (task.app.region_events) kinds.push(countryKind(fixesOf));
  // Place triggers read the signals with the times detection parsed (integrity's checks) rather than re-parsing the fixes.
  kinds.push(placeKind(() => placeView(task, app, venues), fixesOf, () => checks));
  const done = t.commit(app, who, detect, presenceRun(kinds), hearsBeacons(b));
  const answer = ({ result: items, events: kept }: { result: SyncItem[]; events: TriggerEvents }): DetectOutcome => {
    log.debug('detected', { kind: valid.kind, app_key: app, visits: items.length });
    // With no user nothing is kept: the crossings within the request alone (no history, as for visits).
    const events = who === null ? presenceAlone(kinds) : kept;
    return stampOutcome({
      ok: true,
      kind: valid.kind,
      tally: tally(items),
      request_id: b.request_id ?? null,
      user_info: { user_id: b.user_id ?? null, device_id: deviceIdOf(b), custom_data: (b.custom_data as Record<string, unknown>) ?? null },
      items,
      geofence_events: events.geofence,
      place_events: events.place,
      region_events: events.region,
    }, checks);
  };
  // In a batch (batch.ts) the commit is a Later, settled by the batch's one write.
  return done instanceof Promise ? done.then(answer) : Later.is(done) ? (done as Later<Parameters<typeof answer>[0]>).map(answer) : answer(done);
}

export function failed(err: unknown): DetectResult {
  const e = asDwellError(err);
  if (e.code === 'internal') log.error('detection failed', { error: String((err as Error)?.stack ?? err) });
  return { ok: false, error: e.toJSON().error };
}

export function tally(items: SyncItem[]): Tally {
  const t: Tally = { venue: 0, transit: 0, no_venue: 0 };
  for (const { visit } of items) t[visit.place_id ? 'venue' : visit.event_type === 'transit' ? 'transit' : 'no_venue']++;
  return t;
}
