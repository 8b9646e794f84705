/**
 * The registry's side of secrets at rest: which key a record is sealed with when it is written
 * (the embedded node's, fixed at start; a cluster node asks the cluster's check value, so
 * `dwell secrets rotate-key` moves every node to the new key at once) and the opening of stored
 * records, once per value (the keyring remembers).
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

export class AppVault {
  /** `cluster`: the bucket whose check value names the key to seal with; else `fixed` is it. */
  constructor(readonly ring: Keyring, private readonly fixed: SecretKey | undefined, private readonly cluster?: SealedStore) {}

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

  private async sealingKey(): Promise<SecretKey | undefined> {
    if (!this.cluster || !this.ring.current) return this.fixed;
    const check = await this.cluster.readCheck();
    const key = check === undefined ? this.ring.current : checkKey(this.ring, check);
    if (!key) throw new DwellError('unavailable', `the cluster's secrets are now sealed with a key this node does not hold: restart it with the new ${this.ring.names}`);
    return key;
  }
}
