/**
 * One detection request off the HTTP thread: inflate, parse, validate and detect, and for a
 * synchronous app the answer serialised. Everything CPU-bound in a request happens here; the
 * Piscina worker (workers/detect.ts) is only its entry point. The venue store is opened in place
 * from the shared index; user state is one LMDB environment shared by all workers.
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
import { openUserStore } from '../users/store.js';
import { deviceIdOf, userOf } from '../users/identity.js';
import type { Versions } from '../learned/cache.js';
import { geofenceEvents } from '../geofences/worker.js';
import { beaconView } from '../beacons/lookup.js';
import { asFixes } from '../geofences/events.js';
import type { SyncItem, SyncResponse } from '../schemas/visit.js';
import type { DetectTask } from './task.js';
import type { DetectOutcome, DetectResult, Tally } from '../schemas/detect-outcome.js';

const utf8 = new TextEncoder();

/**
 * The task function of one thread. `versions` keeps the thread's cache of learned values exact
 * (learned/cache.ts): shared by the workers of one process.
 */
export function detectTask(versions: Versions): (task: DetectTask) => DetectResult {
  const userStores = new Map<string, ReturnType<typeof openUserStore>>();
  return (task) => detect(task, userStores, versions);
}

function detect(task: DetectTask, userStores: Map<string, ReturnType<typeof openUserStore>>, versions: Versions): DetectResult {
  return settle(task, outcome(task, userStores, versions));
}

/** The outcome as it crosses back to the HTTP thread: a synchronous app's answer as bytes, moved. */
export function settle(task: DetectTask, out: DetectOutcome): DetectResult {
  if (!out.ok || !task.sync) return out;
  const answer: SyncResponse = { data: out.items, geofence_events: out.geofence_events, result: 'SUCCESS' };
  const response = utf8.encode(JSON.stringify(answer));
  // Piscina moves the bytes (transfer list) instead of cloning them; the caller sees the value.
  return move({ [transferableSymbol]: [response.buffer], [valueSymbol]: { ok: true, kind: out.kind, tally: out.tally, response, user: out.user_info.device_id ?? (out.user_info.user_id || null) } }) as unknown as DetectResult;
}

function outcome(task: DetectTask, userStores: Map<string, ReturnType<typeof openUserStore>>, versions: Versions): DetectOutcome {
  try {
    const body = parseJson(task.gzip ? inflateSync(task.body) : task.body);
    const valid = validateDetect(body, task.now);
    let users = userStores.get(task.dataDir);
    // noSync: a commit still survives a crash of this process (it is in the OS page cache); only
    // an OS crash could lose the last moments of history, which costs a prior, never a trigger.
    // Waiting for the disk on every request cost two thirds of a worker's time (bench:http).
    if (!users) userStores.set(task.dataDir, (users = openUserStore(task.dataDir, { noSync: true, versions })));
    users.fresh();
    const ctx: DetectContext = { venues: openStore(task.store), users, estimateAddress, app: task.app, now: task.now, params: DEFAULT_PARAMS,
      beacons: beaconView(task.dataDir, task.app.app_key) };
    const items = valid.kind === 'structured' ? detectStructured(valid.body, ctx) : detectUnstructured(valid.body, ctx);
    const b = valid.body;
    log.debug('detected', { kind: valid.kind, app_key: task.app.app_key, visits: items.length });
    const fixes = () => asFixes('events' in b ? b.events.flatMap((e) => e.data) : b.data);
    const who = userOf(b);
    const geofence_events = geofenceEvents(task.dataDir, task.app.app_key, who, fixes, task.now);
    // Presence is kept as long as the user's record (privacy/retention.ts): a change of it touches the record.
    if (who && geofence_events.length) users.update(task.app.app_key, who, (rec) => ({ record: rec, result: undefined }));
    return {
      ok: true,
      kind: valid.kind,
      tally: tally(items),
      request_id: b.request_id ?? null,
      user_info: { user_id: b.user_id ?? null, device_id: deviceIdOf(b), custom_data: (b.custom_data as Record<string, unknown>) ?? null },
      items,
      geofence_events,
    };
  } catch (err) {
    const e = asDwellError(err);
    if (e.code === 'internal') log.error('detection failed', { error: String((err as Error)?.stack ?? err) });
    return { ok: false, error: e.toJSON().error };
  }
}


export function tally(items: SyncItem[]): Tally {
  const t: Tally = { venue: 0, transit: 0, no_venue: 0 };
  for (const { visit } of items) t[visit.place_id ? 'venue' : visit.event_type === 'transit' ? 'transit' : 'no_venue']++;
  return t;
}
