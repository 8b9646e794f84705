/**
 * The one place that knows which state engine runs (contract §8, DWELL_STATE): `openState` opens
 * every kind of state the HTTP thread uses, embedded (state-embedded.ts: LMDB under the data
 * directory) or cluster (state-cluster.ts: NATS JetStream), behind the same interfaces. The
 * shell, features, privacy and the explorer take this kit and never ask which engine it is; a
 * detection worker opens its own per-thread state from `task.state` (pipeline/thread-state.ts).
 *
 * It lives in the shell, not in state/: the embedded production classes it wraps belong to their
 * features (apps/, geofences/, beacons/, delivery/, recent/), which state/ may not import.
 */
import type { Config } from '../config.js';
import type { NodeState, StateDeps } from './node-state.js';
import { openEmbeddedState } from './state-embedded.js';

export async function openState(config: Config, deps: StateDeps): Promise<NodeState> {
  if (config.state.kind === 'lmdb') return openEmbeddedState(config, deps);
  // Loaded only in cluster mode: the NATS clients cost an embedded node's start-up nothing.
  const { openClusterState } = await import('./state-cluster.js');
  return openClusterState(config, config.state.servers, deps);
}


export type { NodeState, StateDeps } from './node-state.js';
