/**
 * A detection worker's own state, whichever engine runs: the one place a worker thread asks
 * (from the task's `state`, config.state) and opens it, once per thread. Detection and explain
 * (detect.ts, explain.ts) run the same way through it: the user's record read, a pure detection
 * against it (`users`, the synchronous store detection reads and writes), and, for a detection,
 * one commit of what it changed and taught.
 *
 * Embedded (thread-embedded.ts): LMDB in the data directory, synchronous, no promise. Cluster
 * (thread-cluster.ts): the thread's NATS connection, a conditional write on the record's revision.
 */
import type { Versions } from '../learned/cache.js';
import type { DetectTask } from './task.js';
import type { Maybe, ThreadState } from './thread-types.js';
import { embeddedThread } from './thread-embedded.js';

/**
 * The cluster engine, loaded by the first task that names NATS: an embedded node's workers never
 * load the NATS client, the mirrors and the cluster's user view (importing dist/workers/detect.js
 * alone, median of 9: 0.46 s user+sys with them, 0.36 without; a bare node 0.06).
 */
let cluster: Promise<typeof import('./thread-cluster.js')> | null = null;

/** This thread's state for `task` (opened on first use; snapshots renewed for each task). */
export function threadState(task: Pick<DetectTask, 'state' | 'dataDir'>, versions: Versions): Maybe<ThreadState> {
  const s = task.state;
  if (s?.kind !== 'nats') return embeddedThread(task.dataDir, versions);
  cluster ??= import('./thread-cluster.js');
  return cluster.then((m) => m.clusterThread(s.servers));
}


export { isNew, type Maybe, type PresenceRun, type ThreadState } from './thread-types.js';
