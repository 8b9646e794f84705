/**
 * A write to a local LMDB copy that fails is logged and left there, never an unhandled rejection
 * (which ends the process): the replay cache's clear of an expired generation, and the app
 * registry's copy of the cluster's apps. LMDB is made to fail by standing in for the one database
 * whose write fails (a full disk cannot be staged portably); the rest is the real thing on a real
 * NATS server.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayCache } from '../src/server/replay-cache.js';
import { AppRegistry } from '../src/apps/registry.js';
import { AppVault } from '../src/apps/vault.js';
import { Keyring } from '../src/secrets/keyring.js';
import { mirroredApps } from '../src/state/lmdb/apps-mirror.js';
import { openAppsDb, type AppsDb } from '../src/state/lmdb/apps-db.js';
import { openNatsState } from '../src/state/nats/kit.js';
import { natsSealedStore } from '../src/state/nats/apps.js';
import { bucket } from '../src/state/nats/kv.js';
import { startNatsCluster } from './helpers/nats-server.js';
import { tempDir } from './helpers/server.js';
import { until } from './helpers/until.js';

const unhandled: unknown[] = [];
process.on('unhandledRejection', (err) => { unhandled.push(err); });
const failing = () => Promise.reject(new Error('MDB_MAP_FULL: Environment mapsize limit reached'));

test('a replay cache whose clear of an expired generation fails keeps answering', async () => {
  const start = 1_800_000_000_000;
  const cache = new ReplayCache(tempDir(), 60_000, start);
  const gens = (cache as unknown as { gens: Array<{ clearAsync(): Promise<unknown> }> }).gens;
  for (const g of gens) g.clearAsync = failing;
  cache.sweep(start + 3_600_000);
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(unhandled.map(String), []);
  assert.doesNotThrow(() => cache.check('ak_x', 'f'.repeat(64), start + 3_600_000));
  await cache.close();
});

test('a cluster app registry whose local copy cannot be written still follows the cluster', async () => {
  const nats = await startNatsCluster(1);
  after(() => nats.stop());
  const kit = await openNatsState([nats.urls]);
  after(() => kit.close());
  const sealed = natsSealedStore(await bucket(kit.ns, 'dwell-apps'));
  const opts = { secretGraceS: 60, allowPrivate: true };
  let copy: AppsDb | undefined;
  const a = await AppRegistry.shared(tempDir(), opts, kit.apps, sealed);
  // b's copy in apps.mdb is the real one until the registry is open; then its writes fail.
  const b = await AppRegistry.open(await mirroredApps(kit.apps, tempDir(), false, (dir) => (copy = openAppsDb(dir))), opts, new AppVault(new Keyring([])));
  after(() => Promise.all([a.close(), b.close()]));
  copy!.db.put = failing;
  copy!.db.remove = failing;
  const { app } = await a.create({ name: 'elsewhere', delivery: { method: 'sync' } });
  await until('b sees the app', () => b.get(app.app_key) !== undefined);
  await a.delete(app.app_key);
  await until('b forgets the app', () => b.get(app.app_key) === undefined);
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(unhandled.map(String), []);
});
