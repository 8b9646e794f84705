/**
 * Sealing one value: AES-256-GCM with a fresh 96-bit nonce each time and associated data that
 * binds the value to its place (the app key and the field), so a sealed value copied into another
 * app's record, or from a secret into a credential, does not open. The sealed form is text, so it
 * sits in the JSON records where the clear value was: `dwl1.<key id>.<base64url(nonce|ciphertext|tag)>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretKey } from './key.js';

const PREFIX = 'dwl1.';
const NONCE = 12;
const TAG = 16;

/** A value that did not open: the key is not held, or the value was altered or moved. The message names neither value nor key. */
export class SealError extends Error {}

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

/** The id of the key that sealed `value`, or undefined for a clear value. */
export function sealedWith(value: unknown): string | undefined {
  return isSealed(value) ? value.slice(PREFIX.length, value.indexOf('.', PREFIX.length)) : undefined;
}

export function seal(key: SecretKey, plain: string, aad: string): string {
  const nonce = randomBytes(NONCE);
  const c = createCipheriv('aes-256-gcm', key.bytes, nonce).setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([nonce, c.update(plain, 'utf8'), c.final(), c.getAuthTag()]);
  return `${PREFIX}${key.id}.${body.toString('base64url')}`;
}

export function unseal(key: SecretKey, sealed: string, aad: string): string {
  const body = Buffer.from(sealed.slice(PREFIX.length + key.id.length + 1), 'base64url');
  if (sealedWith(sealed) !== key.id || body.length < NONCE + TAG) throw new SealError('not sealed with this key');
  try {
    const d = createDecipheriv('aes-256-gcm', key.bytes, body.subarray(0, NONCE)).setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(body.subarray(body.length - TAG));
    return Buffer.concat([d.update(body.subarray(NONCE, body.length - TAG)), d.final()]).toString('utf8');
  } catch {
    throw new SealError('a sealed value did not open (altered, or moved from another app or field)');
  }
}
