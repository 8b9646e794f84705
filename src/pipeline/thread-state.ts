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
import { clusterThread } from './thread-cluster.js';

/** This thread's state for `task` (opened on first use; snapshots renewed for each task). */
export function threadState(task: Pick<DetectTask, 'state' | 'dataDir'>, versions: Versions): Maybe<ThreadState> {
  const s = task.state;
  return s?.kind === 'nats' ? clusterThread(s.servers) : embeddedThread(task.dataDir, versions);
}


export { isNew, type Maybe, type PresenceRun, type ThreadState } from './thread-types.js';
