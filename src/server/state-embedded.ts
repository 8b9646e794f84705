/**
 * The embedded engine (server/state.ts): one process owns the data directory. Its state kit
 * (kit-lmdb.ts) holds apps, users, learned values, geofences, replay claims and the lease; the
 * HTTP thread's parts the kit does not hold yet are opened here on the same directory: the outbox,
 * beacons, recent detections and place triggers. Privacy and feedback are built on the kit
 * (node-state.ts), as the cluster's are.
 */
import type { Config } from '../config.js';
import { AppVault, fixedKey } from '../apps/vault.js';
import { Outbox } from '../delivery/outbox.js';
import { LmdbBeaconStore } from '../beacons/lmdb-store.js';
import { openRecent } from '../recent/lmdb.js';
import { lmdbPlaceTriggers, openPlaceTriggerEnv } from '../place-triggers/lmdb-store.js';
import { backupMetrics } from '../ops/last-backup.js';
import type { Keyring } from '../secrets/keyring.js';
import type { Versions } from '../learned/cache.js';
import { localVenues } from '../venues/venue-source.js';
import { openLmdbState, type LmdbKit } from './kit-lmdb.js';
import { recentLimits, type Engine, type EngineParts, type StateDeps } from './node-state.js';
import { closeAll } from './close-all.js';

export async function openEmbeddedEngine(dataDir: string, keyring?: Keyring, versions?: Versions): Promise<Engine & { kit: LmdbKit }> {
  const kit = await openLmdbState(dataDir, keyring, versions);
  return { kit, parts: (config, deps) => embeddedParts(kit, config, deps) };
}

async function embeddedParts(kit: LmdbKit, config: Config, deps: StateDeps): Promise<EngineParts> {
  const dir = kit.dataDir;
  const outbox = new Outbox(dir);
  const beacons = new LmdbBeaconStore(dir);
  const recent = openRecent(dir, recentLimits(config));
  const placeTriggers = lmdbPlaceTriggers(openPlaceTriggerEnv(dir));
  backupMetrics(deps.metrics, dir); // `dwell backup` of this directory
  return {
    apps: kit.apps,
    vault: new AppVault(deps.keyring, fixedKey(kit.sealWith)),
    outbox, beacons, recent, placeTriggers,
    fences: kit.geofences.store,
    openVenues: async () => localVenues(config.venues),
    close: () => closeAll('embedded state', [
      ['recent detections', () => recent.close()], ['place triggers', () => placeTriggers.close()],
      ['beacons', () => beacons.close()], ['outbox', () => outbox.close()],
    ]),
  };
}
