/**
 * The Piscina task: inflate, parse, validate and detect, and for a synchronous app the answer
 * serialised. Everything CPU-bound in a request happens here, off the HTTP thread. The venue
 * store is opened in place from the shared index; user state is one LMDB environment shared by
 * all workers.
 */
import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { asDwellError } from '../src/errors.js';
import { log } from '../src/log.js';
import { inflateSync } from '../src/server/body.js';
import { parseJson } from '../src/server/json-body.js';
import { validateDetect } from '../src/schemas/validate-detect.js';
import { openStore } from '../src/venues/store.js';
import { estimateAddress } from '../src/venues/address.js';
import { detectStructured, detectUnstructured, type DetectContext } from '../src/detect/index.js';
import { openUserStore } from '../src/users/store.js';
import { deviceIdOf, userOf } from '../src/users/identity.js';
import { newVersions } from '../src/users/learned-cache.js';
import { geofenceEvents } from '../src/geofences/worker.js';
import { asFixes } from '../src/geofences/events.js';
import type { SyncItem, SyncResponse } from '../src/schemas/visit.js';
import type { DetectOutcome, DetectResult, DetectTask, Tally } from '../src/server/detect-task.js';

// Load the offline place database while the pool starts, not inside the first request.
estimateAddress(0, 0);
const userStores = new Map<string, ReturnType<typeof openUserStore>>();
/** Shared with the other workers of this process (pool.ts); a table of its own when run in-process (bench/http-task). */
const versions = newVersions((workerData as { userVersions?: SharedArrayBuffer } | null)?.userVersions);

const utf8 = new TextEncoder();

export default function detect(task: DetectTask): DetectResult {
  const out = outcome(task);
  if (!out.ok || !task.sync) return out;
  const answer: SyncResponse = { data: out.items, geofence_events: out.geofence_events, result: 'SUCCESS' };
  const response = utf8.encode(JSON.stringify(answer));
  // Piscina moves the bytes (transfer list) instead of cloning them; the caller sees the value.
  return move({ [transferableSymbol]: [response.buffer], [valueSymbol]: { ok: true, kind: out.kind, tally: out.tally, response } }) as unknown as DetectResult;
}

function outcome(task: DetectTask): DetectOutcome {
  try {
    const body = parseJson(task.gzip ? inflateSync(task.body) : task.body);
    const valid = validateDetect(body, task.now);
    let users = userStores.get(task.dataDir);
    // noSync: a commit still survives a crash of this process (it is in the OS page cache); only
    // an OS crash could lose the last moments of history, which costs a prior, never a trigger.
    // Waiting for the disk on every request cost two thirds of a worker's time (bench:http).
    if (!users) userStores.set(task.dataDir, (users = openUserStore(task.dataDir, { noSync: true, versions })));
    users.fresh();
    const ctx: DetectContext = { venues: openStore(task.store), users, estimateAddress, app: task.app, now: task.now };
    const items = valid.kind === 'structured' ? detectStructured(valid.body, ctx) : detectUnstructured(valid.body, ctx);
    const b = valid.body;
    const fixes = () => asFixes('events' in b ? b.events.flatMap((e) => e.data) : b.data);
    const geofence_events = geofenceEvents(task.dataDir, task.app.app_key, userOf(b), fixes, task.now);
    // Presence is kept as long as the user's record (privacy/retention.ts): a change of it touches the record.
    const who = userOf(b);
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


function tally(items: SyncItem[]): Tally {
  const t: Tally = { venue: 0, transit: 0, no_venue: 0 };
  for (const { visit } of items) t[visit.place_id ? 'venue' : visit.event_type === 'transit' ? 'transit' : 'no_venue']++;
  return t;
}
