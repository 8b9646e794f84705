/**
 * The app registry: keys, secrets and delivery settings, kept in the apps' state (state/types.ts
 * AppsState) of whichever engine runs. The HTTP thread verifies every request against it, so apps
 * are also held in a Map, which follows the state's watch; the state is the source of truth and
 * writes go through it first.
 *
 * With DWELL_SECRET_KEY the state holds secrets and credentials sealed, the Map the clear record;
 * the engine's opener checks the key and seals what is still clear before the registry opens
 * (server/state-kit.ts), and gives the vault the key to seal with.
 */
import { randomBytes } from 'node:crypto';
import { DwellError } from '../errors.js';
import type { AppRecord, CreateApp, Delivery, UpdateApp } from '../schemas/app.js';
import { checkDelivery } from './delivery-rules.js';
import type { AppsState } from '../state/types.js';
import { lmdbApps } from '../state/lmdb/apps.js';
import { mirroredApps } from '../state/lmdb/apps-mirror.js';
import { unlockAppsDb } from '../state/lmdb/apps-sealed.js';
import { Keyring } from '../secrets/keyring.js';
import { unlock, type SealedStore } from '../secrets/unlock.js';
import { AppVault, checkedKey, fixedKey } from './vault.js';
import { clock } from '../time/clock.js';
import { InFlight } from './in-flight.js';

export interface RegistryOptions {
  secretGraceS: number;
  allowPrivate: boolean;
  /** The operator's keys (DWELL_SECRET_KEY): given, open the registry with `open` after the engine's unlock. */
  keyring?: Keyring;
}

export const DEFAULT_CONFIRM_DWELL_S = 300;

/**
 * A cluster node's apps and the vault that seals them: the node's key checked against the
 * cluster's first (secrets/unlock.ts), then the cluster's apps with their copy in apps.mdb for the
 * delivery worker (state/lmdb/apps-mirror.ts).
 */
export async function clusterApps(dataDir: string, ring: Keyring, shared: AppsState, sealed: SealedStore): Promise<{ apps: AppsState; vault: AppVault }> {
  await unlock(ring, sealed, 'check');
  const apps = await mirroredApps(shared, dataDir, ring.current !== undefined);
  return { apps, vault: new AppVault(ring, checkedKey(ring, sealed)) };
}

export class AppRegistry {
  private readonly store: AppsState;
  private readonly vault: AppVault;
  private readonly cache = new Map<string, AppRecord>();
  /** Keys the apps' state answered absent for, until when (ms); see `fetch`. */
  private readonly absent = new Map<string, number>();
  private readonly stopWatch: () => void;
  /** Resolves once the Map holds every app stored when the registry opened. */
  readonly ready: Promise<void>;
  /** Each app's signed requests being handled on this node (server/signed.ts), which its deletion waits for. */
  readonly inFlight = new InFlight();
  /** Apps this node is deleting: their deletion, seen again through the watch, is its own. */
  private readonly deleting = new Set<string>();
  private deletedElsewhere?: (appKey: string) => void;

  /** `where`: the apps' state, or a data directory (the embedded apps.mdb there, secrets clear: tests and benchmarks). */
  constructor(where: string | AppsState, private readonly opts: RegistryOptions, vault?: AppVault) {
    this.store = typeof where === 'string' ? lmdbApps(where) : where;
    this.vault = vault ?? new AppVault(opts.keyring ?? new Keyring([]));
    const w = this.store.watch((key, stored) => {
      if (!stored) {
        const known = this.cache.delete(key);
        // Deleted by another node while this one handles requests of the app: they may store
        // after that node removed everything, so this node removes what they left once they end.
        if (known && !this.deleting.delete(key) && this.inFlight.count(key) > 0) this.deletedElsewhere?.(key);
        return;
      }
      this.deleting.delete(key);
      this.absent.delete(key);
      const app = this.vault.opened(stored);
      if (app) this.cache.set(key, app);
    });
    this.stopWatch = w.stop;
    this.ready = w.ready;
  }

  /**
   * The registry over `store`, holding every app stored now and then every change any node
   * makes. A stored app that does not open with `vault`'s keys refuses the start (SealError);
   * `store` is closed with the registry, or at once when it refuses.
   */
  static async open(store: AppsState, opts: RegistryOptions, vault: AppVault): Promise<AppRegistry> {
    try {
      for (const app of await store.all()) vault.open(app);
      const r = new AppRegistry(store, opts, vault);
      await r.ready;
      return r;
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  /** An embedded node's registry: the key checked and clear secrets sealed (secrets/unlock.ts) before apps.mdb opens. */
  static async embedded(dataDir: string, opts: RegistryOptions): Promise<AppRegistry> {
    const ring = opts.keyring ?? new Keyring([]);
    const { sealWith } = await unlockAppsDb(dataDir, ring);
    return AppRegistry.open(lmdbApps(dataDir), { ...opts, keyring: ring }, new AppVault(ring, fixedKey(sealWith)));
  }

  /** A cluster node's registry, over clusterApps. */
  static async shared(dataDir: string, opts: RegistryOptions, shared: AppsState, sealed: SealedStore): Promise<AppRegistry> {
    const ring = opts.keyring ?? new Keyring([]);
    const { apps, vault } = await clusterApps(dataDir, ring, shared, sealed);
    return AppRegistry.open(apps, { ...opts, keyring: ring }, vault);
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
   * Whether a key this node does not hold may still name an app: one created on another node a
   * moment ago, before the watch brought it. Never where the state is `complete` (embedded: no
   * other writer), nor for ABSENT_TTL_MS after the state said it holds no such key.
   */
  mayExistElsewhere(appKey: string, now = clock.now()): boolean {
    if (this.store.complete || this.cache.has(appKey)) return false;
    const until = this.absent.get(appKey);
    return until === undefined || until <= now;
  }

  /**
   * Reads an app this node has not seen yet from the apps' state (see `mayExistElsewhere`). True
   * when it is now known.
   *
   * A key the state said it does not hold is not asked again for ABSENT_TTL_MS (at most
   * ABSENT_MAX keys, the oldest forgotten first), so a stream of made-up keys costs NATS one read
   * per key and minute, not one per request. A create through any node still counts at once: the
   * cache is consulted first, the watch that brings the app also clears its absent mark, and app
   * keys are random, so no client holds a key before its app exists.
   */
  async fetch(appKey: string, now = clock.now()): Promise<boolean> {
    if (!this.mayExistElsewhere(appKey, now)) return this.cache.has(appKey);
    const stored = await this.store.get(appKey);
    const app = stored && this.vault.opened(stored);
    if (app) this.cache.set(appKey, app);
    else if (!this.cache.has(appKey)) this.markAbsent(appKey, now + ABSENT_TTL_MS);
    return this.cache.has(appKey);
  }

  private markAbsent(appKey: string, until: number): void {
    this.absent.delete(appKey);
    if (this.absent.size >= ABSENT_MAX) this.absent.delete(this.absent.keys().next().value!);
    this.absent.set(appKey, until);
  }

  /** The secrets that sign valid requests now: the current one and any still in their grace period. */
  liveSecrets(app: AppRecord, now = clock.now()): string[] {
    return app.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => s.value);
  }

  async create(input: CreateApp): Promise<{ app: AppRecord; secret: string }> {
    const delivery = checkDelivery(input.delivery, this.opts.allowPrivate);
    const now = new Date(clock.now()).toISOString();
    const app: AppRecord = {
      app_key: 'ak_' + randomBytes(12).toString('hex'),
      name: input.name,
      delivery,
      confirm_dwell_s: input.confirm_dwell_s ?? DEFAULT_CONFIRM_DWELL_S,
      integrity: input.integrity ?? 'flag',
      region_events: input.region_events ?? false,
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
      integrity: patch.integrity ?? app.integrity ?? 'flag',
      region_events: patch.region_events ?? app.region_events ?? false,
      updated_at: new Date(clock.now()).toISOString(),
    };
    await this.save(next);
    return next;
  }

  /** A new secret; the old ones keep working for the grace period, then are forgotten. */
  async rotateSecret(appKey: string): Promise<string> {
    const app = this.require(appKey);
    const now = clock.now();
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
    this.deleting.add(appKey);
    // The store first: a delete that fails leaves the app as it was, stored and served, not
    // stored but refused on this node alone. Requests accepted meanwhile are the ones before it.
    try {
      await this.store.remove(appKey);
    } catch (err) {
      this.deleting.delete(appKey);
      throw err;
    }
    this.cache.delete(appKey);
    return true;
  }

  /**
   * `fn` runs when the watch brings another node's deletion of an app while this node handles
   * requests of it (privacy/service.ts removes what they store, once they end).
   */
  onDeletedElsewhere(fn: (appKey: string) => void): void {
    this.deletedElsewhere = fn;
  }

  close(): Promise<void> {
    this.stopWatch();
    return this.store.close();
  }

  private require(appKey: string): AppRecord {
    const app = this.cache.get(appKey);
    if (!app) throw new DwellError('not_found', `no app with key ${JSON.stringify(appKey)}`);
    return app;
  }

  private async save(app: AppRecord): Promise<void> {
    // Durable (and in the delivery worker's apps.mdb) before it resolves, so before the admin API answers.
    await this.store.put(await this.vault.seal(app));
    this.cache.set(app.app_key, app);
  }
}

/** How long a key the cluster does not hold is answered unknown without asking again, and how many such keys are kept. */
const ABSENT_TTL_MS = 60_000;
const ABSENT_MAX = 10_000;

function newSecret(): string {
  return randomBytes(32).toString('hex');
}
