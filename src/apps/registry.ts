/**
 * The app registry: keys, secrets and delivery settings in LMDB under DWELL_DATA_DIR. The HTTP
 * thread verifies every request against it, so apps are also held in a Map; the store is the
 * source of truth and writes go through it first.
 *
 * In cluster mode (`shared`, contract §8) the source of truth is the cluster's apps state, which
 * every node watches: the Map and the local LMDB follow it (the delivery worker keeps reading
 * apps from the local LMDB, so it sees an app created on any node).
 *
 * With DWELL_SECRET_KEY the stores hold secrets and credentials sealed, the Map the clear record;
 * `embedded` and `shared` check the key and seal what is still clear before anything is read.
 */
import { randomBytes } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import { DwellError } from '../errors.js';
import type { AppRecord, CreateApp, Delivery, UpdateApp } from '../schemas/app.js';
import { checkDelivery } from './delivery-rules.js';
import { openAppsDb } from './apps-db.js';
import type { AppsState } from '../state/types.js';
import { dropAppsDb, unlockAppsDb } from '../state/lmdb/apps-sealed.js';
import { Keyring } from '../secrets/keyring.js';
import { unlock, type SealedStore } from '../secrets/unlock.js';
import { AppVault } from './vault.js';

export interface RegistryOptions {
  secretGraceS: number;
  allowPrivate: boolean;
  /** The operator's keys (DWELL_SECRET_KEY): given, open the registry with `embedded` or `shared`. */
  keyring?: Keyring;
}

export const DEFAULT_CONFIRM_DWELL_S = 300;

export class AppRegistry {
  private readonly root: RootDatabase;
  private readonly db: Database<AppRecord, string>;
  private readonly cache = new Map<string, AppRecord>();
  private vault: AppVault;
  private stopWatch: () => void = () => {};

  constructor(dataDir: string, private readonly opts: RegistryOptions, private readonly shared?: AppsState) {
    ({ root: this.root, db: this.db } = openAppsDb(dataDir));
    this.vault = new AppVault(opts.keyring ?? new Keyring([]), undefined);
    if (!shared && !opts.keyring) this.load();
  }

  /** The registry of the embedded mode: the key checked, clear secrets sealed, then every app read. */
  static async embedded(dataDir: string, opts: RegistryOptions): Promise<AppRegistry> {
    const ring = opts.keyring ?? new Keyring([]);
    // The embedded node's key changes only at start: it seals with the key it opened with.
    const { sealWith } = await unlockAppsDb(dataDir, ring);
    const r = new AppRegistry(dataDir, { ...opts, keyring: ring });
    r.vault = new AppVault(ring, sealWith);
    r.load();
    return r;
  }

  /** The registry of a cluster node: the key checked against the cluster's, then every app of the cluster, then every change any node makes. */
  static async shared(dataDir: string, opts: RegistryOptions, shared: AppsState, sealed: SealedStore): Promise<AppRegistry> {
    const ring = opts.keyring ?? new Keyring([]);
    if (ring.current) dropAppsDb(dataDir);
    const r = new AppRegistry(dataDir, { ...opts, keyring: ring }, shared);
    try {
      await unlock(ring, sealed, 'check');
      r.vault = new AppVault(ring, undefined, sealed);
      const all = await shared.all();
      for (const app of all) r.cache.set(app.app_key, r.vault.open(app));
      await r.root.transaction(() => {
        for (const key of r.db.getKeys()) r.db.remove(key);
        for (const app of all) r.db.put(app.app_key, app);
      });
    } catch (err) {
      await r.root.close();
      throw err;
    }
    r.stopWatch = shared.watch((key, stored) => {
      if (!stored) { r.cache.delete(key); void r.db.remove(key); return; }
      const app = r.vault.opened(stored);
      if (app) { r.cache.set(key, app); void r.db.put(key, stored); }
    }).stop;
    return r;
  }

  /** Whether secrets are stored sealed (/readyz says `secrets: unsealed` otherwise). */
  get sealed(): boolean {
    return this.vault.ring.current !== undefined;
  }

  get(appKey: string): AppRecord | undefined {
    return this.cache.get(appKey);
  }

  /** Every app, in key order (the admin API's list, for the explorer). */
  list(): AppRecord[] {
    return [...this.cache.values()].sort((a, b) => (a.app_key < b.app_key ? -1 : 1));
  }

  /**
   * Cluster mode: an app this node has not seen yet (created on another node a moment ago, before
   * the watch brought it) is read from the cluster. True when it is now known.
   */
  async fetch(appKey: string): Promise<boolean> {
    if (!this.shared || this.cache.has(appKey)) return this.cache.has(appKey);
    const stored = await this.shared.get(appKey);
    const app = stored && this.vault.opened(stored);
    if (app) this.cache.set(appKey, app);
    return app !== undefined;
  }

  get clustered(): boolean {
    return this.shared !== undefined;
  }

  /** The secrets that sign valid requests now: the current one and any still in their grace period. */
  liveSecrets(app: AppRecord, now = Date.now()): string[] {
    return app.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => s.value);
  }

  async create(input: CreateApp): Promise<{ app: AppRecord; secret: string }> {
    const delivery = checkDelivery(input.delivery, this.opts.allowPrivate);
    const now = new Date().toISOString();
    const app: AppRecord = {
      app_key: 'ak_' + randomBytes(12).toString('hex'),
      name: input.name,
      delivery,
      confirm_dwell_s: input.confirm_dwell_s ?? DEFAULT_CONFIRM_DWELL_S,
      secrets: [{ value: newSecret(), expires_at: null }],
      created_at: now,
      updated_at: now,
    };
    await this.save(app);
    return { app, secret: app.secrets[0].value };
  }

  async update(appKey: string, patch: UpdateApp): Promise<AppRecord> {
    const app = this.require(appKey);
    const delivery: Delivery = patch.delivery ? checkDelivery(patch.delivery, this.opts.allowPrivate) : app.delivery;
    const next: AppRecord = {
      ...app,
      name: patch.name ?? app.name,
      delivery,
      confirm_dwell_s: patch.confirm_dwell_s ?? app.confirm_dwell_s,
      updated_at: new Date().toISOString(),
    };
    await this.save(next);
    return next;
  }

  /** A new secret; the old ones keep working for the grace period, then are forgotten. */
  async rotateSecret(appKey: string): Promise<string> {
    const app = this.require(appKey);
    const now = Date.now();
    const graceEnd = now + this.opts.secretGraceS * 1000;
    const kept = app.secrets
      .map((s) => ({ value: s.value, expires_at: s.expires_at === null ? graceEnd : Math.min(s.expires_at, graceEnd) }))
      .filter((s) => s.expires_at > now);
    const secret = newSecret();
    await this.save({ ...app, secrets: [{ value: secret, expires_at: null }, ...kept], updated_at: new Date(now).toISOString() });
    return secret;
  }

  /** Forgets the app: its key answers 401 unknown_app from now on. False when there was none. */
  async delete(appKey: string): Promise<boolean> {
    if (!this.cache.has(appKey)) return false;
    this.cache.delete(appKey); // first, so no request is accepted while the record goes
    if (this.shared) await this.shared.remove(appKey);
    await this.db.remove(appKey);
    await this.root.flushed;
    return true;
  }

  close(): Promise<void> {
    this.stopWatch();
    return this.root.close();
  }

  private require(appKey: string): AppRecord {
    const app = this.cache.get(appKey);
    if (!app) throw new DwellError('not_found', `no app with key ${JSON.stringify(appKey)}`);
    return app;
  }

  private async save(app: AppRecord): Promise<void> {
    const stored = await this.vault.seal(app);
    if (this.shared) await this.shared.put(stored);
    await this.db.put(app.app_key, stored);
    await this.root.flushed; // durable before the admin API answers (lmdb-js flushes after commit)
    this.cache.set(app.app_key, app);
  }

  private load(): void {
    for (const { key, value } of this.db.getRange()) this.cache.set(key, this.vault.open(value));
  }
}

function newSecret(): string {
  return randomBytes(32).toString('hex');
}
