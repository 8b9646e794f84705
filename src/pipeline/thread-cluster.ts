/**
 * A detection thread's state in the cluster engine (thread-state.ts, contract §8): the thread's
 * own NATS connection, learned values, fences and beacons. A commit is a write with the revision
 * read, run again on a conflict (state/user-view.ts says how detection's synchronous reads and
 * writes are served). Presence lives in the user's record here, so one conditional write covers
 * visits, stream state and presence; what the stored run learned is sent after the record, so a
 * run thrown away on a conflict taught nothing.
 */
import { log } from '../log.js';
import { clock } from '../time/clock.js';
import { ClusterUserView } from '../state/user-view.js';
import { openNatsState } from '../state/nats/kit.js';
import { FenceMirror } from '../geofences/mirror.js';
import { BeaconMirror } from '../beacons/mirror.js';
import { presenceOf, setPresence } from '../users/records.js';
import { noEvents } from '../users/presence.js';
import { isNew, type ThreadState } from './thread-types.js';

let thread: Promise<ThreadState> | null = null;
/** How long a detection waits for its thread's copies to catch up before going on without. */
const CATCH_UP_MS = 2_000;

/** This thread's connection, learned values, fences and beacons: detect and explain share them. */
export function clusterThread(servers: readonly string[]): Promise<ThreadState> {
  thread ??= (async () => {
    const kit = await openNatsState(servers);
    const fences = new FenceMirror(kit.fences);
    const beacons = new BeaconMirror(kit.beacons);
    // The watch's `ready` gives up waiting after a moment; a large registry replays for longer.
    try {
      await Promise.all([fences.ready, beacons.ready.then(() => beacons.settle(60_000, 'warn')), kit.learnedReady]);
    } catch (err) {
      // The cluster did not answer in time (`unavailable`): this try's connection goes, the next request tries again.
      fences.stop();
      beacons.stop();
      await kit.close().catch(() => undefined);
      throw err;
    }
    const view = new ClusterUserView(kit.learned);
    // Contract §8: a fence or beacon written through any node before this request is in this
    // thread's copies before detection reads them (catch-up.ts): the fences always, the beacons
    // when the request heard one (the only time they are read; each catch-up is a stream-info
    // request, ~0.3 ms of this thread's CPU). Behind after a while (a watch cut off by an outage),
    // detection goes on with what the copies hold, saying so.
    const current = async (heard: boolean) => {
      const [f] = await Promise.all([fences.caughtUp(CATCH_UP_MS), heard ? beacons.settle(CATCH_UP_MS, 'warn') : undefined]);
      if (!f) log.warn('geofence copy behind the cluster; going on with it', {});
    };
    const send = (writes: Array<() => Promise<void>>) => Promise.all(writes.map((w) => w().catch((err) => log.warn('learned values not stored', { error: String((err as Error)?.message ?? err) }))));
    const state: ThreadState = {
      users: view,
      async commit(app, who, detect, presence, heard) {
        await current(heard);
        if (who === null) {
          const run = view.run(app, null, undefined, detect);
          await send([...run.learned, ...view.takeMerges()]);
          return { result: run.result, events: noEvents() };
        }
        const done = await kit.users.modify(app, who, (rec) => {
          const run = view.run(app, who, isNew(rec) ? undefined : rec, detect);
          let record = run.record ?? rec;
          const ev = presence(presenceOf(record));
          if (ev.changed) record = setPresence({ ...record }, ev.presence);
          record.d = clock.now();
          return { record, result: { result: run.result, events: ev.events, learned: run.learned } };
        });
        // The stored run's lessons, and the thread's merges of priors: additions, sent after the record.
        await send([...done.learned, ...view.takeMerges()]);
        return { result: done.result, events: done.events };
      },
      async peek(app, who, detect, heard) {
        await current(heard);
        const rec = who === null ? undefined : await kit.users.read(app, who);
        // What the run collected is dropped: nothing is sent.
        return view.run(app, who, rec && !isNew(rec) ? rec : undefined, detect).result;
      },
      fences(app) {
        const index = fences.index(app);
        return index?.size ? { index, info: (id: string) => fences.info(app, id) } : undefined;
      },
      beacons: (app) => beacons.view(app),
    };
    return state;
  })().catch((err) => { thread = null; throw err; });
  return thread;
}
