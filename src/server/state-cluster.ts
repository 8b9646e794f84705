/**
 * The cluster engine (server/state.ts, contract §8, DWELL_STATE=nats://…): this node's connection
 * to the cluster's state and every kind on it: the app registry that follows every node's
 * changes, the shared replay claims, geofences (expired ones purged once per cluster, by the
 * lease holder), the beacon registry, the trigger queue's streams, recent detections, users and
 * learned values for feedback and privacy.
 */
import type { Config } from '../config.js';
import { log } from '../log.js';
import { AppRegistry } from '../apps/registry.js';
import { openNatsState } from '../state/nats/kit.js';
import { purgeExpiredFences } from '../state/nats/fences.js';
import { NatsOutbox } from '../state/nats/outbox.js';
import { bucket } from '../state/nats/kv.js';
import { natsSealedStore } from '../state/nats/apps.js';
import { clusterGeofences } from '../geofences/cluster-store.js';
import { ClusterBeaconStore } from '../beacons/cluster-store.js';
import { natsRecent } from '../recent/nats.js';
import { clusterPrivacy } from '../privacy/engine.js';
import { clusterStepper } from '../feedback/record-step.js';
import { clusterReplays } from './replays.js';
import { recentLimits, type NodeState, type StateDeps } from './node-state.js';

const SWEEP_MS = 1_000;

export async function openClusterState(config: Config, servers: readonly string[], deps: StateDeps): Promise<NodeState> {
  const kit = await openNatsState(servers);
  let apps: AppRegistry;
  try {
    const sealed = natsSealedStore(await bucket(kit.ns, 'dwell-apps'));
    apps = await AppRegistry.shared(config.dataDir, { secretGraceS: config.secretGraceS, allowPrivate: config.postbackAllowPrivate, keyring: deps.keyring }, kit.apps, sealed);
  } catch (err) {
    await kit.close(); // a refused key ends the process: nothing of the cluster may hold it open
    throw err;
  }
  const outbox = await NatsOutbox.open(servers, { consume: false, name: 'dwell-http' });
  const recent = await natsRecent(kit.ns, recentLimits(config));
  const beacons = new ClusterBeaconStore(kit.beacons);
  // Geofence expiry, once per cluster: the lease holder purges, the others only renew their claim.
  let sweeping = false;
  const timer = setInterval(async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      if (await kit.lease.hold('geofence-expiry')) {
        const n = await purgeExpiredFences(kit.buckets.fences);
        if (n) log.debug('geofences expired', { purged: n });
      }
    } catch (err) {
      log.warn('cluster sweep skipped', { error: String((err as Error)?.message ?? err) });
    } finally {
      sweeping = false;
    }
  }, SWEEP_MS);
  timer.unref();
  log.info('cluster state open', { servers: servers.length, replicas: kit.ns.replicas });
  return {
    apps, outbox, recent, beacons,
    replays: clusterReplays(kit.replay),
    fences: clusterGeofences(kit.fences),
    privacy: clusterPrivacy({ users: kit.users, learned: kit.learned, fences: kit.fences, lease: kit.lease }),
    feedback: clusterStepper({ users: kit.users, learned: kit.learned }),
    health: kit.health,
    async close() {
      clearInterval(timer);
      await recent.close();
      await beacons.close();
      await outbox.close();
      await apps.close();
      await kit.close();
    },
  };
}
