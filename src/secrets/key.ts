/**
 * The operator's key (DWELL_SECRET_KEY): 32 random bytes, given in base64, never stored by Dwell.
 * Sealed values name the key that sealed them by a short id derived from it (an HMAC, so the id
 * says nothing about the key), which lets a node hold two keys while they are rotated.
 */
import { createHmac } from 'node:crypto';

export interface SecretKey { readonly id: string; readonly bytes: Buffer }

const BASE64_32 = /^[A-Za-z0-9+/_-]{43}=?$/;

/** Parses a key as an operator writes it; the error never repeats the value (it may be a real key with a typo). */
export function parseKey(raw: string): SecretKey {
  const text = raw.trim();
  if (!BASE64_32.test(text)) {
    throw new Error(`expected 32 random bytes in base64 (44 characters, as \`openssl rand -base64 32\` prints), got ${text.length} characters`);
  }
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 32) throw new Error(`expected 32 bytes once decoded, got ${bytes.length}`);
  return Object.freeze({ id: createHmac('sha256', bytes).update('dwell secret key id').digest('hex').slice(0, 8), bytes });
}

/** Checks a setting's value without keeping it: config.ts validates at start, the keyring parses again. */
export function checkKeyText(raw: string): string {
  if (raw !== '') parseKey(raw);
  return raw;
}
