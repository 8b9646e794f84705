/**
 * The registry's side of secrets at rest: which key a record is sealed with when it is written
 * (given by whoever opened the apps' store: `fixedKey` for an embedded node, `checkedKey` for a
 * cluster node) and the opening of stored records, once per value (the keyring remembers).
 */
import { DwellError } from '../errors.js';
import { log } from '../log.js';
import type { AppRecord } from '../schemas/app.js';
import type { Keyring } from '../secrets/keyring.js';
import type { SecretKey } from '../secrets/key.js';
import { openApp, sealApp } from '../secrets/app-record.js';
import { checkKey } from '../secrets/check.js';
import { SealError } from '../secrets/seal.js';
import type { SealedStore } from '../secrets/unlock.js';

/** The key a record is sealed with when it is written (undefined: stored clear). */
export type SealingKey = () => Promise<SecretKey | undefined>;

/** The key an embedded node opened with: its key changes only at start. */
export const fixedKey = (key: SecretKey | undefined): SealingKey => async () => key;

/**
 * The key the cluster's check value names, read at each write: `dwell secrets rotate-key` moves
 * every node to the new key at once. Throws `unavailable` when this node does not hold it.
 */
export function checkedKey(ring: Keyring, store: SealedStore): SealingKey {
  return async () => {
    if (!ring.current) return undefined;
    const check = await store.readCheck();
    const key = check === undefined ? ring.current : checkKey(ring, check);
    if (!key) throw new DwellError('unavailable', `the cluster's secrets are now sealed with a key this node does not hold: restart it with the new ${ring.names}`);
    return key;
  };
}

export class AppVault {
  constructor(readonly ring: Keyring, private readonly sealingKey: SealingKey = fixedKey(undefined)) {}

  /** The record as it is to be stored. */
  async seal(app: AppRecord): Promise<AppRecord> {
    return sealApp(this.ring, app, await this.sealingKey());
  }

  /** The clear record; throws SealError when a value does not open. */
  open(stored: AppRecord): AppRecord {
    return openApp(this.ring, stored);
  }

  /** The clear record, or undefined (logged) when this node cannot open it: a watcher keeps what it knew. */
  opened(stored: AppRecord): AppRecord | undefined {
    try {
      return openApp(this.ring, stored);
    } catch (err) {
      if (!(err instanceof SealError)) throw err;
      log.error('an app changed on another node is sealed with a key this node does not hold; restart it with the cluster\'s key', { app: stored.app_key, error: err.message });
      return undefined;
    }
  }
}
