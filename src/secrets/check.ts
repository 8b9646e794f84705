/**
 * The check value kept beside the sealed data (the embedded apps store's `meta`, the cluster's
 * apps bucket): a known text sealed with the key in use, so a node given the wrong key refuses to
 * start, by name, instead of failing each request of each app.
 */
import type { SecretKey } from './key.js';
import type { Keyring } from './keyring.js';
import { SealError, seal, sealedWith, unseal } from './seal.js';

const TEXT = 'dwell secret key check';
const PLACE = 'dwell\0key-check';

export function makeCheck(key: SecretKey): string {
  return seal(key, TEXT, PLACE);
}

/** The key of the ring that opens the check value, or undefined when none does. */
export function checkKey(ring: Keyring, check: string): SecretKey | undefined {
  const key = ring.byId(sealedWith(check));
  if (!key) return undefined;
  try {
    return unseal(key, check, PLACE) === TEXT ? key : undefined;
  } catch (err) {
    if (err instanceof SealError) return undefined;
    throw err;
  }
}
