/** The Piscina detection worker's entry point (server/pool.ts); the work is src/pipeline/detect.ts (detect-cluster.ts in cluster mode). */
import { workerData } from 'node:worker_threads';
import { detectTask } from '../src/pipeline/detect.js';
import { detectClustered } from '../src/pipeline/detect-cluster.js';
import { newVersions } from '../src/learned/cache.js';
import { estimateAddress } from '../src/venues/address.js';
import type { DetectTask } from '../src/pipeline/task.js';

// Load the offline place database while the pool starts, not inside the first request.
estimateAddress(0, 0);

/** Shared with the other workers of this process (pool.ts); a table of its own when run in-process (bench/http-task). */
const local = detectTask(newVersions((workerData as { userVersions?: SharedArrayBuffer } | null)?.userVersions));

export default (task: DetectTask) => (task.cluster ? detectClustered(task) : local(task));
