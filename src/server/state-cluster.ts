/**
 * The cluster engine (server/state.ts, contract §8, DWELL_STATE=nats://…): this node's connection
 * to the cluster's state, its kit (state/nats/kit.ts), and the HTTP thread's parts the kit does
 * not hold yet, opened on that connection: the apps with their copy for the delivery worker,
 * geofences (external ids claimed in their own bucket; expired ones purged once per cluster, by
 * the lease holder), the beacon registry, the trigger queue's streams, recent detections, place
 * triggers. Privacy and feedback are built on the kit (node-state.ts), as the embedded engine's are.
 */
import type { Config } from '../config.js';
import { log } from '../log.js';
import type { AppVault } from '../apps/vault.js';
import { clusterApps } from '../apps/registry.js';
import { openNatsState, type NatsKit } from '../state/nats/kit.js';
import { purgeExpiredFences } from '../state/nats/fences.js';
import { NatsOutbox } from '../state/nats/outbox.js';
import { bucket } from '../state/nats/kv.js';
import { natsSealedStore } from '../state/nats/apps.js';
import { clusterGeofences } from '../geofences/cluster-store.js';
import { natsFenceXids } from '../state/nats/fence-xids.js';
import { clock } from '../time/clock.js';
import { ClusterBeaconStore } from '../beacons/cluster-store.js';
import { natsRecent } from '../recent/nats.js';
import { natsPlaceTriggers, PLACE_TRIGGERS_BUCKET } from '../place-triggers/nats-store.js';
import { recentLimits, type Engine, type EngineParts, type StateDeps } from './node-state.js';
import { closeAll } from './close-all.js';
import type { AppsState } from '../state/types.js';
import { followedVenues } from '../venues/venue-source.js';

const SWEEP_MS = 1_000;

export async function openClusterEngine(servers: readonly string[]): Promise<Engine & { kit: NatsKit }> {
  const kit = await openNatsState(servers);
  return { kit, parts: (config, deps) => clusterParts(kit, servers, config, deps) };
}

async function clusterParts(kit: NatsKit, servers: readonly string[], config: Config, deps: StateDeps): Promise<EngineParts> {
  let apps: AppsState | undefined;
  let outbox: NatsOutbox | undefined;
  let recent: Awaited<ReturnType<typeof natsRecent>> | undefined;
  let opened: {
    apps: AppsState; vault: AppVault; outbox: NatsOutbox; recent: Awaited<ReturnType<typeof natsRecent>>;
    xids: ReturnType<typeof natsFenceXids>; placeTriggers: ReturnType<typeof natsPlaceTriggers>;
  };
  try {
    const sealed = natsSealedStore(await bucket(kit.ns, 'dwell-apps'));
    const cluster = await clusterApps(config.dataDir, deps.keyring, kit.apps, sealed);
    apps = cluster.apps;
    outbox = await NatsOutbox.open(servers, { consume: false, name: 'dwell-http' });
    recent = await natsRecent(kit.ns, recentLimits(config));
    const xids = natsFenceXids(await bucket(kit.ns, 'dwell-fence-xids'), kit.fences, clock.now);
    opened = { apps, vault: cluster.vault, outbox, recent, xids, placeTriggers: natsPlaceTriggers(await bucket(kit.ns, PLACE_TRIGGERS_BUCKET)) };
  } catch (err) {
    // The kit is closed by the caller (node-state.ts); what was opened here is closed here.
    await closeAll('cluster state (not opened)', [['recent detections', () => recent?.close()], ['outbox', () => outbox?.close()],
      ['apps', () => apps?.close()]]).catch(() => undefined);
    throw err;
  }
  const beacons = new ClusterBeaconStore(kit.beacons);
  const fences = clusterGeofences(kit.fences, opened.xids);
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
    apps: opened.apps, vault: opened.vault, outbox: opened.outbox, recent: opened.recent, beacons, fences,
    placeTriggers: opened.placeTriggers,
    openVenues: () => followedVenues(servers, config.dataDir, config.storePollMs),
    close: () => closeAll('cluster state', [
      ['geofence sweep', () => clearInterval(timer)], ['geofences', () => fences.close()], ['recent detections', () => opened.recent.close()],
      ['beacons', () => beacons.close()], ['outbox', () => opened.outbox.close()],
    ]),
  };
}
