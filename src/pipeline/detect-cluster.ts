/**
 * One detection in cluster mode (contract §8): the same pure detection as detect.ts, run as
 * read → detect → write-with-revision against the cluster's user state, again on a conflict
 * (state/user-view.ts says how detection's synchronous reads and writes are served). Geofence
 * presence lives in the user's record here, so one conditional write covers visits, stream state
 * and presence. Each worker thread keeps its own NATS connection, learned values, fences and beacons.
 */
import { asDwellError } from '../errors.js';
import { log } from '../log.js';
import { inflateSync } from '../http/body.js';
import { parseJson } from '../http/json-body.js';
import { validateDetect } from '../schemas/validate-detect.js';
import { openStore } from '../venues/store.js';
import { estimateAddress } from '../venues/address.js';
import { DEFAULT_PARAMS, detectStructured, detectUnstructured, type DetectContext } from '../detect/index.js';
import { deviceIdOf, userOf } from '../users/identity.js';
import { ClusterUserView } from '../state/user-view.js';
import type { UserRecord } from '../users/records.js';
import { openNatsState, type NatsKit } from '../state/nats/kit.js';
import { FenceMirror } from '../geofences/mirror.js';
import { BeaconMirror } from '../beacons/mirror.js';
import { asFixes, evaluate, NO_PRESENCE, type Fix } from '../geofences/events.js';
import type { GeofenceEvent, SyncItem } from '../schemas/visit.js';
import type { DetectTask } from './task.js';
import type { DetectOutcome, DetectResult } from '../schemas/detect-outcome.js';
import { settle, tally } from './detect.js';
import { clock } from '../time/clock.js';

export interface ClusterThread { kit: NatsKit; view: ClusterUserView; fences: FenceMirror; beacons: BeaconMirror }
let thread: Promise<ClusterThread> | null = null;

/** This thread's connection, learned values, fences and beacons: detect and explain share them. */
export function clusterThread(servers: readonly string[]): Promise<ClusterThread> {
  thread ??= (async () => {
    const kit = await openNatsState(servers);
    const fences = new FenceMirror(kit.fences);
    const beacons = new BeaconMirror(kit.beacons);
    // The watch's `ready` gives up waiting after a moment; a large registry replays for longer.
    await Promise.all([fences.ready, beacons.ready.then(() => beacons.settle(60_000, 'warn')), kit.learnedReady]);
    return { kit, view: new ClusterUserView(kit.learned), fences, beacons };
  })().catch((err) => { thread = null; throw err; });
  return thread;
}

export async function detectClustered(task: DetectTask): Promise<DetectResult> {
  return settle(task, await outcome(task));
}

/** A record with nothing in it: detection runs as for a user never seen. */
export const isNew = (r: UserRecord) => Object.keys(r.h).length === 0 && r.r.length === 0 && !r.s && !r.v && !r.g;

async function outcome(task: DetectTask): Promise<DetectOutcome> {
  try {
    const body = parseJson(task.gzip ? inflateSync(task.body) : task.body);
    const valid = validateDetect(body, task.now);
    const { kit, view, fences, beacons } = await clusterThread(task.state?.kind === 'nats' ? task.state.servers : []);
    const b = valid.body;
    const app = task.app.app_key;
    const who = userOf(b);
    const ctx: DetectContext = { venues: openStore(task.store), users: view, estimateAddress, app: task.app, now: task.now, params: DEFAULT_PARAMS,
      beacons: beacons.view(app) };
    let fixes: readonly Fix[] | null = null;
    const fixesOf = () => (fixes ??= asFixes('events' in b ? b.events.flatMap((e) => e.data) : b.data));

    /** One pure run on `rec` (undefined: no user): the items, the events and the record to store. */
    const step = (rec: UserRecord | undefined) => {
      const run = view.run(app, who, rec && !isNew(rec) ? rec : undefined, () =>
        valid.kind === 'structured' ? detectStructured(valid.body, ctx) : detectUnstructured(valid.body, ctx));
      let events: GeofenceEvent[] = [];
      let record = run.record ?? rec;
      const index = fences.index(app);
      if (index?.size && fixesOf().length) {
        const ev = evaluate({ index, info: (id) => fences.info(app, id) }, record?.g ?? NO_PRESENCE, fixesOf(), task.now);
        events = ev.events;
        if (ev.changed && record) record = { ...record, g: ev.presence };
      }
      if (record) record.d = clock.now();
      return { items: run.result as SyncItem[], events, record, learned: run.learned };
    };

    const done = who === null
      ? step(undefined)
      : await kit.users.modify(app, who, (rec) => { const r = step(rec); return { record: r.record ?? rec, result: r }; });
    // What the stored run learned, and the thread's merges of priors: additions, sent after the
    // user's record so a run thrown away on a conflict taught nothing.
    const writes = [...done.learned, ...view.takeMerges()];
    await Promise.all(writes.map((w) => w().catch((err) => log.warn('learned values not stored', { error: String((err as Error)?.message ?? err) }))));
    return {
      ok: true,
      kind: valid.kind,
      tally: tally(done.items),
      request_id: b.request_id ?? null,
      user_info: { user_id: b.user_id ?? null, device_id: deviceIdOf(b), custom_data: (b.custom_data as Record<string, unknown>) ?? null },
      items: done.items,
      geofence_events: done.events,
    };
  } catch (err) {
    const e = asDwellError(err);
    if (e.code === 'internal') log.error('detection failed', { error: String((err as Error)?.stack ?? err) });
    return { ok: false, error: e.toJSON().error };
  }
}
