/**
 * The keys this process holds: DWELL_SECRET_KEY (what it seals with) and, while a key is being
 * rotated, DWELL_SECRET_KEY_OLD (still opened, never sealed with). Opened values are remembered,
 * by sealed text and place, so each app's secrets are unsealed once and then only looked up; they
 * stay in this process's memory and nowhere else.
 */
import { readFileSync } from 'node:fs';
import { parseKey, type SecretKey } from './key.js';
import { SealError, isSealed, seal, sealedWith, unseal } from './seal.js';

/** The settings a keyring is made from (config.ts). */
export interface KeySettings { secretKey: string; secretKeyFile: string; secretKeyOld: string }

/** A keyring as a worker thread receives it. */
export interface SharedKeys { keys: Array<{ id: string; bytes: Uint8Array }>; names: string }

const MEMO_MAX = 100_000;

export class Keyring {
  private readonly memo = new Map<string, string>();

  /**
   * `keys[0]` seals; every one opens. Empty: no key, values are stored clear. `names` says where
   * the keys came from, for messages (`DWELL_SECRET_KEY`, `DWELL_SECRET_KEY_OLD`, …).
   */
  constructor(readonly keys: readonly SecretKey[], readonly names = 'DWELL_SECRET_KEY') {}

  get current(): SecretKey | undefined {
    return this.keys[0];
  }

  /** What another thread's keyring is made from (workerData): the keys, never written anywhere. */
  toShare(): SharedKeys {
    return { keys: this.keys.map((k) => ({ id: k.id, bytes: new Uint8Array(k.bytes) })), names: this.names };
  }

  static fromShared(s: SharedKeys | undefined): Keyring {
    return new Keyring((s?.keys ?? []).map((k) => Object.freeze({ id: k.id, bytes: Buffer.from(k.bytes) })), s?.names);
  }

  byId(id: string | undefined): SecretKey | undefined {
    return this.keys.find((k) => k.id === id);
  }

  seal(plain: string, aad: string, key: SecretKey): string {
    const sealed = seal(key, plain, aad);
    this.remember(sealed, aad, plain);
    return sealed;
  }

  /** The clear value: a clear value as it is, a sealed one opened with the key it names. */
  open(value: string, aad: string): string {
    if (!isSealed(value)) return value;
    const memoKey = aad + '\0' + value;
    const hit = this.memo.get(memoKey);
    if (hit !== undefined) return hit;
    const key = this.byId(sealedWith(value));
    if (!key) throw new SealError(this.keys.length ? 'sealed with a key this node does not hold' : 'sealed, and this node has no DWELL_SECRET_KEY');
    const plain = unseal(key, value, aad);
    this.remember(value, aad, plain);
    return plain;
  }

  private remember(sealed: string, aad: string, plain: string): void {
    if (this.memo.size >= MEMO_MAX) this.memo.clear(); // a bound, not an LRU: a refill costs one decryption per value
    this.memo.set(aad + '\0' + sealed, plain);
  }
}

/** The keyring of the settings: the key (or the file holding it) first, then the old one. */
export function keyringFrom(s: KeySettings): Keyring {
  if (s.secretKey && s.secretKeyFile) throw new Error('set DWELL_SECRET_KEY or DWELL_SECRET_KEY_FILE, not both');
  if (s.secretKeyOld && !s.secretKey && !s.secretKeyFile) throw new Error('DWELL_SECRET_KEY_OLD is only read beside DWELL_SECRET_KEY (or DWELL_SECRET_KEY_FILE): the old key opens, the new one seals');
  const keys: SecretKey[] = [];
  if (s.secretKey) keys.push(parseKey(s.secretKey));
  if (s.secretKeyFile) {
    let text: string;
    try {
      text = readFileSync(s.secretKeyFile, 'utf8');
    } catch (err) {
      throw new Error(`DWELL_SECRET_KEY_FILE: cannot read ${s.secretKeyFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    try {
      keys.push(parseKey(text));
    } catch (err) {
      throw new Error(`DWELL_SECRET_KEY_FILE ${s.secretKeyFile}: ${(err as Error).message}`);
    }
  }
  const names = [s.secretKey ? 'DWELL_SECRET_KEY' : 'DWELL_SECRET_KEY_FILE'];
  if (s.secretKeyOld) {
    const old = parseKey(s.secretKeyOld);
    if (old.id !== keys[0].id) keys.push(old);
    names.push('DWELL_SECRET_KEY_OLD');
  }
  return new Keyring(keys, names.join(' (nor ') + (names.length > 1 ? ')' : ''));
}
