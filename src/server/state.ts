/**
 * The one place that knows which state engine runs for the HTTP thread (contract §8,
 * DWELL_STATE): `openStateKit` opens the engine's state kit (state/types.ts StateKit), embedded
 * (state-embedded.ts, kit-lmdb.ts: LMDB under the data directory) or cluster (state-cluster.ts:
 * NATS JetStream), and `openState` builds the HTTP thread's state on it (node-state.ts), privacy
 * and feedback included. The shell, features and the explorer take that state and never ask
 * which engine it is; a
 * detection worker opens its own per-thread state from `task.state` (pipeline/thread-state.ts).
 *
 * It lives in the shell, not in state/: the embedded production classes it wraps belong to their
 * features (apps/, geofences/, beacons/, delivery/, recent/) and to server/, which state/ may not
 * import.
 */
import type { Config } from '../config.js';
import type { Keyring } from '../secrets/keyring.js';
import type { Versions } from '../learned/cache.js';
import { nodeState, type Engine, type NodeState, type StateDeps } from './node-state.js';
import { openEmbeddedEngine } from './state-embedded.js';

/**
 * The engine of `config.state`: its kit, and how the HTTP thread's parts open on it. `versions`:
 * the detection threads' version table, which the embedded kit publishes its learned merges to.
 */
export async function openStateKit(config: Pick<Config, 'state' | 'dataDir'>, keyring?: Keyring, versions?: Versions): Promise<Engine> {
  if (config.state.kind === 'lmdb') return openEmbeddedEngine(config.dataDir, keyring, versions);
  // Loaded only in cluster mode: the NATS clients cost an embedded node's start-up nothing.
  const { openClusterEngine } = await import('./state-cluster.js');
  return openClusterEngine(config.state.servers);
}

export async function openState(config: Config, deps: StateDeps): Promise<NodeState> {
  return nodeState(await openStateKit(config, deps.keyring, deps.versions), config, deps);
}

export type { NodeState, StateDeps } from './node-state.js';
