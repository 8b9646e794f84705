/**
 * Request signing (contract §1). The headers are checked as soon as they arrive; the signature
 * once the last raw byte is in, before anything is inflated or parsed, so an unsigned gzip bomb
 * costs nothing but its upload.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DwellError } from '../errors.js';
import type { AppRecord } from '../schemas/app.js';
import type { AppRegistry } from '../apps/registry.js';
import { wallNow } from '../time/wall.js';

export const STALE_AFTER_S = 300;

export interface AuthHeaders { appKey: string; timestamp: string; signature: string }

/** Resolves the app and checks the clock; the body's hash is not known yet. */
export function checkHeaders(h: AuthHeaders, apps: AppRegistry, now = wallNow()): AppRecord {
  if (!h.appKey || !h.timestamp || !h.signature) {
    const missing = [!h.appKey && 'X-App-Key', !h.timestamp && 'X-Timestamp', !h.signature && 'X-Signature'].filter(Boolean);
    throw new DwellError('missing_auth', `missing ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}`);
  }
  if (!/^\d{1,12}$/.test(h.timestamp)) {
    throw new DwellError('missing_auth', `X-Timestamp is Unix time in whole seconds, got ${JSON.stringify(h.timestamp.slice(0, 40))}`);
  }
  const app = apps.get(h.appKey);
  if (!app) throw new DwellError('unknown_app', 'unknown app key');
  if (Math.abs(now / 1000 - Number(h.timestamp)) > STALE_AFTER_S) {
    throw new DwellError('stale_timestamp', `X-Timestamp is more than ${STALE_AFTER_S} s from server time (${Math.floor(now / 1000)})`);
  }
  return app;
}

/** Constant-time check against every live secret of the app (old ones during rotation grace). */
export function checkSignature(secrets: string[], text: string, signature: string): void {
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : null;
  let ok = false;
  for (const secret of secrets) {
    const want = createHmac('sha256', secret).update(text).digest();
    // Compare every secret, even after a match, so timing does not tell which one matched.
    if (given && timingSafeEqual(want, given)) ok = true;
  }
  if (!ok) throw new DwellError('invalid_signature', 'X-Signature does not match the request');
}
