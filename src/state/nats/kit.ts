/**
 * The cluster implementation of the state interface: one NATS connection per thread and the
 * buckets Dwell keeps there, created on first use with the cluster's replica count (R3 from three
 * servers up). Buckets: dwell-apps, dwell-users-0…3, dwell-learned, dwell-fences, dwell-beacons, dwell-replay
 * (TTL: the replay window), dwell-leases (TTL: a lease).
 */
import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { StateKit } from '../types.js';
import { connectNats, type NatsState } from './connect.js';
import { bucket, guard } from './kv.js';
import { natsApps } from './apps.js';
import { natsUsers } from './users.js';
import { natsLearned } from './learned.js';
import { natsFences } from './fences.js';
import { natsBeacons, type BeaconsState } from './beacons.js';
import { natsReplay, REPLAY_TTL_MS } from './replay.js';
import { LEASE_TTL_MS, natsLease } from './lease.js';

/** User buckets: each is one stream with its own leader, so four spread user writes over three servers. */
export const USER_PARTITIONS = 4;

export interface NatsKit extends StateKit {
  ns: NatsState;
  buckets: { fences: KV; users: KV[]; learned: KV };
  /** The beacon registry (contract §9): not in StateKit, the embedded mode keeps it in beacons/lmdb-store.ts. */
  beacons: BeaconsState;
  /** Resolves once this node's copy of the learned tables holds what was stored when it opened. */
  learnedReady: Promise<void>;
}

export async function openNatsState(servers: readonly string[]): Promise<NatsKit> {
  const name = `dwell-${hostname()}-${process.pid}-${threadId}`;
  const ns = await connectNats(servers, { name });
  const [apps, learned, fences, beacons, replay, leases, ...users] = await Promise.all([
    bucket(ns, 'dwell-apps'),
    bucket(ns, 'dwell-learned'),
    bucket(ns, 'dwell-fences'),
    bucket(ns, 'dwell-beacons'),
    bucket(ns, 'dwell-replay', { ttl: REPLAY_TTL_MS }),
    bucket(ns, 'dwell-leases', { ttl: LEASE_TTL_MS }),
    ...Array.from({ length: USER_PARTITIONS }, (_, i) => bucket(ns, `dwell-users-${i}`)),
  ]);
  // One copy of the learned values per process, followed by its main thread: see learned.ts.
  const lease = natsLease(leases, `${name}-${randomBytes(4).toString('hex')}`);
  // The learned writer skips the sums of apps deleted meanwhile (one read an app a window): an
  // app's key whose last entry is a delete marker. One never stored (tests of the learned tables
  // alone) counts as live.
  const live = async (app: string) => {
    const e = await guard(() => apps.get(app));
    return !(e && (e.operation === 'DEL' || e.operation === 'PURGE'));
  };
  const learnedState = natsLearned(learned, ns.nc, lease, live);
  return {
    kind: 'nats',
    ns,
    buckets: { fences, users, learned },
    get learnedReady() { return learnedState.ready; },
    apps: natsApps(apps),
    users: natsUsers(users),
    learned: learnedState,
    fences: natsFences(fences),
    beacons: natsBeacons(beacons),
    replay: natsReplay(replay),
    // Unique per connection: two connections of one thread are two holders.
    lease,
    health: () => (ns.isUp() ? 'up' : 'down'),
    async close() {
      await learnedState.stop();
      await ns.close();
    },
  };
}
