/**
 * What a node does with the stored apps before it serves (and what `dwell secrets rotate-key`
 * does): checks its keys against the check value kept beside the data, refusing to start, by
 * name, when they do not open it; seals what is still clear and re-seals what an older key
 * sealed, record by record, each write conditional on the record being unchanged since it was
 * read (cluster nodes starting together, or an admin write meanwhile, never lose a change).
 * Records first, check value last: an interruption leaves a store that the same keys open again.
 */
import type { AppRecord } from '../schemas/app.js';
import { log } from '../log.js';
import type { SecretKey } from './key.js';
import type { Keyring } from './keyring.js';
import { makeCheck, checkKey } from './check.js';
import { openApp, sealApp, sealedBy } from './app-record.js';
import { SealError } from './seal.js';

/** The apps and the check value as stored, with conditional writes. */
export interface SealedStore {
  /** Where the data is, for messages (`apps.mdb in /var/dwell`, `the cluster's dwell-apps bucket`). */
  readonly where: string;
  readCheck(): Promise<string | undefined>;
  /** Unless the check value changed since it was read (`previous` undefined: unless one exists); false when it did. */
  writeCheck(next: string, previous: string | undefined): Promise<boolean>;
  all(): Promise<AppRecord[]>;
  get(appKey: string): Promise<AppRecord | undefined>;
  /** Unless the record changed since `stored` was read; false when it did. */
  replace(stored: AppRecord, next: AppRecord): Promise<boolean>;
}

/** A start refused because of the keys given: the operator's to fix, so the message says which setting. */
export class KeyRefused extends Error {}

/**
 * `current`: seal with the ring's first key and make the check value say so (the embedded node,
 * the rotate-key command). `check`: seal with whichever held key the check value names (a
 * cluster node: the cluster moves to a new key only when rotate-key says so, once every node
 * holds both).
 */
export type Target = 'current' | 'check';

export interface Unlocked { sealWith: SecretKey | undefined; resealed: number }

export async function unlock(ring: Keyring, store: SealedStore, target: Target): Promise<Unlocked> {
  let check = await store.readCheck();
  if (!ring.current) {
    const sealed = check !== undefined || (await store.all()).some((a) => sealedBy(a).some((id) => id !== undefined));
    if (sealed) throw new KeyRefused(`the app secrets in ${store.where} are sealed: set DWELL_SECRET_KEY (or DWELL_SECRET_KEY_FILE) to the key they were sealed with`);
    log.warn('DWELL_SECRET_KEY is not set: app secrets and bucket credentials are stored in clear, readable in any copy of the data (see docs/operating.md, "Secrets at rest")', { where: store.where });
    return { sealWith: undefined, resealed: 0 };
  }
  for (let attempt = 0; check === undefined; attempt++) {
    // First start with a key: the check value first, so a node started meanwhile with another key is refused.
    if (await store.writeCheck(makeCheck(ring.current), undefined)) return { sealWith: ring.current, resealed: await reseal(ring, store, ring.current) };
    check = await store.readCheck();
    if (attempt > 5) throw new Error(`${store.where}: the check value keeps changing`);
  }
  const opens = checkKey(ring, check);
  if (!opens) throw new KeyRefused(`${ring.names} is not the key the app secrets in ${store.where} were sealed with; start with that key (to change keys, see \`dwell secrets rotate-key\`)`);
  const key = target === 'current' ? ring.current : opens;
  const resealed = await reseal(ring, store, key);
  if (key !== opens) {
    if (!(await store.writeCheck(makeCheck(key), check))) throw new Error(`${store.where}: the check value changed while the secrets were re-sealed; run again`);
    log.info('secret key rotated: the check value now names the new key', { where: store.where, key_id: key.id });
  } else if (opens !== ring.current) {
    log.warn('the stored secrets are sealed with DWELL_SECRET_KEY_OLD: once every node holds both keys, run `dwell secrets rotate-key` against the cluster', { where: store.where, key_id: key.id });
  }
  return { sealWith: key, resealed };
}

/** Seals under `key` every value of every record that is clear or sealed by another held key; answers how many records changed. */
export async function reseal(ring: Keyring, store: SealedStore, key: SecretKey): Promise<number> {
  let records = 0, values = 0;
  for (let stored of await store.all()) {
    for (let attempt = 0; ; attempt++) {
      const stale = sealedBy(stored).filter((id) => id !== key.id).length;
      if (stale === 0) break;
      let clear: AppRecord;
      try {
        clear = openApp(ring, stored);
      } catch (err) {
        if (err instanceof SealError) throw new KeyRefused(`app ${stored.app_key} in ${store.where} holds a secret sealed with a key that is neither of ${ring.names}: ${err.message}`);
        throw err;
      }
      if (await store.replace(stored, sealApp(ring, clear, key))) {
        records++;
        values += stale;
        break;
      }
      const now = await store.get(stored.app_key); // changed meanwhile: again, on what it now is
      if (!now || attempt > 5) break;
      stored = now;
    }
  }
  if (records) log.info('app secrets sealed with the secret key', { apps: records, values, key_id: key.id, where: store.where });
  return records;
}
