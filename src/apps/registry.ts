/**
 * The app registry: keys, secrets and delivery settings in LMDB under DWELL_DATA_DIR. The HTTP
 * thread verifies every request against it, so apps are also held in a Map; the store is the
 * source of truth and writes go through it first.
 *
 * In cluster mode (`shared`, contract §8) the source of truth is the cluster's apps state, which
 * every node watches: the Map and the local LMDB follow it (the delivery worker keeps reading
 * apps from the local LMDB, so it sees an app created on any node).
 */
import { randomBytes } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import { DwellError } from '../errors.js';
import type { AppRecord, CreateApp, Delivery, UpdateApp } from '../schemas/app.js';
import { checkDelivery } from './delivery-rules.js';
import { openAppsDb } from './apps-db.js';
import type { AppsState } from '../state/types.js';

export const DEFAULT_CONFIRM_DWELL_S = 300;

export class AppRegistry {
  private readonly root: RootDatabase;
  private readonly db: Database<AppRecord, string>;
  private readonly cache = new Map<string, AppRecord>();

  private stopWatch: () => void = () => {};

  constructor(dataDir: string, private readonly opts: { secretGraceS: number; allowPrivate: boolean }, private readonly shared?: AppsState) {
    ({ root: this.root, db: this.db } = openAppsDb(dataDir));
    if (!shared) for (const { key, value } of this.db.getRange()) this.cache.set(key, value);
  }

  /** The registry of a cluster node: every app of the cluster, then every change any node makes. */
  static async shared(dataDir: string, opts: { secretGraceS: number; allowPrivate: boolean }, shared: AppsState): Promise<AppRegistry> {
    const r = new AppRegistry(dataDir, opts, shared);
    const all = await shared.all();
    await r.root.transaction(() => {
      for (const key of r.db.getKeys()) r.db.remove(key);
      for (const app of all) r.db.put(app.app_key, app);
    });
    for (const app of all) r.cache.set(app.app_key, app);
    r.stopWatch = shared.watch((key, app) => {
      if (app) { r.cache.set(key, app); void r.db.put(key, app); } else { r.cache.delete(key); void r.db.remove(key); }
    }).stop;
    return r;
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
    const app = await this.shared.get(appKey);
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
    if (this.shared) await this.shared.put(app);
    await this.db.put(app.app_key, app);
    await this.root.flushed; // durable before the admin API answers (lmdb-js flushes after commit)
    this.cache.set(app.app_key, app);
  }
}

function newSecret(): string {
  return randomBytes(32).toString('hex');
}
