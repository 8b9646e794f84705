/**
 * Cluster mode at start-up (contract §8, DWELL_STATE=nats://…): this node's connection to the
 * cluster's state and what the shell builds on it: the app registry that follows every node's
 * changes, the shared replay check, the geofence routes' store, the beacon registry's bucket, and the sweeps that run once per
 * cluster (whoever holds the lease). The embedded mode builds none of this (app.ts).
 */
import type { Config } from '../config.js';
import { log } from '../log.js';
import { AppRegistry } from '../apps/registry.js';
import { openNatsState, type NatsKit } from '../state/nats/kit.js';
import { purgeExpiredFences } from '../state/nats/fences.js';
import { clusterGeofences } from '../geofences/cluster-store.js';
import type { GeofenceApi } from '../geofences/routes.js';
import { clusterReplays, type Replays } from './replays.js';
import type { ClusterPrivacy } from '../privacy/cluster.js';
import type { BeaconsState } from '../state/nats/beacons.js';
import { bucket } from '../state/nats/kv.js';
import { natsSealedStore } from '../state/nats/apps.js';
import type { Keyring } from '../secrets/keyring.js';

export interface ClusterNode {
  servers: readonly string[];
  kit: NatsKit;
  apps: AppRegistry;
  replays: Replays;
  geofences: GeofenceApi;
  /** The beacon registry's bucket: beacons/service.ts keeps its store there. */
  beacons: BeaconsState;
  privacy: ClusterPrivacy;
  /** 'up' while the cluster answers: /readyz says not ready otherwise. */
  health(): 'up' | 'down';
  close(): Promise<void>;
}

const SWEEP_MS = 1_000;

export async function openCluster(config: Config, keyring: Keyring): Promise<ClusterNode | null> {
  if (config.state.kind !== 'nats') return null;
  const servers = config.state.servers;
  const kit = await openNatsState(servers);
  let apps: AppRegistry;
  try {
    const sealed = natsSealedStore(await bucket(kit.ns, 'dwell-apps'));
    apps = await AppRegistry.shared(config.dataDir, { secretGraceS: config.secretGraceS, allowPrivate: config.postbackAllowPrivate, keyring }, kit.apps, sealed);
  } catch (err) {
    await kit.close(); // a refused key ends the process: nothing of the cluster may hold it open
    throw err;
  }
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
    servers, kit, apps,
    replays: clusterReplays(kit.replay),
    geofences: clusterGeofences(kit.fences),
    beacons: kit.beacons,
    privacy: { users: kit.users, learned: kit.learned, fences: kit.fences, lease: kit.lease },
    health: kit.health,
    async close() {
      clearInterval(timer);
      await apps.close();
      await kit.close();
    },
  };
}
