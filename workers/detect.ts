/** The Piscina detection worker's entry point (server/pool.ts); the work is src/pipeline/detect.ts, in either state engine. */
import { workerData } from 'node:worker_threads';
import { withRequestId } from '../src/log.js';
import type { DetectTask } from '../src/pipeline/task.js';
import { detectTask } from '../src/pipeline/detect.js';
import { explainTask } from '../src/pipeline/explain.js';
import { detectBatch } from '../src/pipeline/batch.js';
import type { DetectBatch } from '../src/pipeline/task.js';
import { newVersions } from '../src/learned/cache.js';
import { estimateAddress } from '../src/venues/address.js';
import { usePlaceDb } from '../src/venues/place-db/share.js';
import { turningLoop } from '../src/pipeline/loop-turn.js';
import { useClock } from '../src/time/clock.js';

// The place database the pool shares with every worker (server/pool.ts), opened while the pool
// starts, not inside the first request.
usePlaceDb((workerData as { placeDb?: SharedArrayBuffer } | null)?.placeDb);
// The server's clock (time/clock.ts): the users' retention slots are stamped with it.
useClock((workerData as { clock?: SharedArrayBuffer } | null)?.clock);
estimateAddress(0, 0);

/** Shared with the other workers of this process (pool.ts); a table of its own when run in-process (bench/http-task). */
const versions = newVersions((workerData as { userVersions?: SharedArrayBuffer } | null)?.userVersions);
const run = detectTask(versions);
/** The worker's log lines carry the request's id, as the HTTP thread's do; its event loop turns a few times a second (loop-turn.ts). */
const one = (task: DetectTask) => (task.requestId ? withRequestId(task.requestId, () => run(task)) : run(task));
export default turningLoop(one);
/** The server's path: the requests one turn of the HTTP thread had ready (server/pool.ts), as one unit (pipeline/batch.ts). */
export const batch = turningLoop(detectBatch(versions, one) as (b: DetectBatch) => unknown);
/** An operator's explanation (pipeline/explain.ts): Piscina runs it by name. */
export const explain = explainTask(versions);
