/**
 * Warming the detection workers before /readyz says ready (issue 21). A node that had just
 * started or joined served its first minute with 10–12 % of detections over 50 ms: each worker
 * loaded its modules and the offline gazetteer inside its first requests, ran the detection code
 * unoptimised, and read the venue store's pages for the first time.
 *
 * Warm-up requests are ordinary detection tasks from synthetic devices at venues spread over the
 * served store, shaped as real devices' (warm-up-request.ts: real traffic reached code that
 * requests of one shape never did, issue 44). They run against a scratch data directory, so no
 * app's users or learned tables see them; a last round of anonymous requests without Wi-Fi
 * (which write nothing) opens the real data directory's stores in every worker.
 */
import { gzipSync } from 'node:zlib';
import type { StoreHandle } from '../venues/store.js';
import type { DetectTask } from '../pipeline/task.js';
import type { TaskApp } from '../schemas/app.js';
import { clock } from '../time/clock.js';
import { warmUpRequest, type WarmUpPlace } from './warm-up-request.js';

/** An app key no app can have (keys are issued by the registry): warm-up state is never an app's. */
export const WARM_UP_APP = 'dwell:warm-up';

/**
 * `count` detection tasks for warming from the `from`-th: with Wi-Fi and users on `dir` (a
 * scratch directory), or anonymous without Wi-Fi (which write nothing) when `wifi` is false.
 */
export function warmUpTasks(store: StoreHandle, places: readonly WarmUpPlace[], dir: string, from: number, count: number, wifi: boolean, now = clock.now()): DetectTask[] {
  if (places.length === 0) return [];
  const app: TaskApp = { app_key: WARM_UP_APP, confirm_dwell_s: 300, integrity: 'flag', region_events: false };
  return Array.from({ length: count }, (_, i) => ({ body: gzipSync(JSON.stringify(warmUpRequest(from + i, places, now, wifi))), gzip: true, sync: true, app, store, dataDir: dir, now }));
}
