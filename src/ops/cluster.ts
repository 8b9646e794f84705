/**
 * Cluster mode keeps its state in NATS JetStream, not in the data directory: `dwell backup`
 * there copies nothing (a copy of the local directory would look like a backup and hold none of
 * it) and says what to back up instead, in the same dependents-first order as stores.ts.
 */
import { USER_PARTITIONS } from '../state/nats/kit.js';

export const CLUSTER_STREAMS: readonly string[] = Object.freeze([
  'DWELL_OUTBOX', 'DWELL_DEAD',
  'KV_dwell-fences',
  ...Array.from({ length: USER_PARTITIONS }, (_, i) => `KV_dwell-users-${i}`),
  'KV_dwell-learned', 'KV_dwell-beacons', 'KV_dwell-place-triggers', 'KV_dwell-replay', 'KV_dwell-apps',
]);

export class ClusterBackup extends Error {
  readonly exitCode = 1;
  constructor(servers: readonly string[]) {
    super(`the state is in NATS JetStream (${servers.join(',')}), not in the data directory: nothing copied. `
      + `Back up these streams with the nats CLI (\`nats stream backup <stream> <dir>\` each, in this order, or \`nats account backup <dir>\`) `
      + `or nats-server's own tooling, and restore them with \`nats stream restore <dir>\`: ${CLUSTER_STREAMS.join(', ')}. `
      + 'dwell-leases (leases, a TTL of seconds) and the venue stores (published again with `dwell import --publish`) need no backup. See docs/operating.md, "Backup, restore and upgrade".');
    this.name = 'ClusterBackup';
  }
}
