/**
 * App settings as the delivery worker sees them: read straight from `<dataDir>/apps.mdb` (the
 * registry's LMDB, opened read-only from this thread), so a changed postback URL or a rotated
 * secret applies to the next attempt. Records are kept for at most `ttlMs` to spare a read per
 * delivery under load; anything that gives a trigger up reads afresh. Stored secrets and
 * credentials are sealed when the operator set DWELL_SECRET_KEY: opened here with the keys the
 * HTTP thread checked at start (the keyring remembers, so each value is decrypted once).
 */
import type { Database, RootDatabase } from 'lmdb';
import type { AppRecord } from '../schemas/app.js';
import { openAppsDb } from '../apps/apps-db.js';
import { Keyring } from '../secrets/keyring.js';
import { openApp } from '../secrets/app-record.js';

/** `fresh`: skip the cache, for decisions that cannot be undone (giving a trigger up). */
export type AppLookup = (appKey: string, now: number, fresh?: boolean) => AppRecord | undefined;

export class AppSettings {
  private readonly root: RootDatabase;
  private readonly db: Database<AppRecord, string>;
  private readonly cache = new Map<string, { app: AppRecord | undefined; at: number }>();

  constructor(dataDir: string, private readonly ring = new Keyring([]), private readonly ttlMs = 250) {
    ({ root: this.root, db: this.db } = openAppsDb(dataDir, { readOnly: true }));
  }

  /** The app's record as stored now (give or take `ttlMs`), or undefined when there is none. */
  readonly get: AppLookup = (appKey, now, fresh = false) => {
    const hit = this.cache.get(appKey);
    if (hit && !fresh && now - hit.at < this.ttlMs) return hit.app;
    // lmdb-js renews a thread's read snapshot on a timer: without this, a read just after the HTTP
    // thread's commit (an app deleted, a secret rotated) could still see the record before it.
    this.root.resetReadTxn();
    const stored = this.db.get(appKey);
    const app = stored && openApp(this.ring, stored);
    if (this.cache.size > 10_000) this.cache.clear(); // a bound, not an LRU: refills cost a get each
    this.cache.set(appKey, { app, at: now });
    return app;
  };

  close(): Promise<void> {
    return this.root.close();
  }
}
