/**
 * Request signing (contract §1). The headers are checked as soon as they arrive; the signature
 * once the last raw byte is in, before anything is inflated or parsed, so an unsigned gzip bomb
 * costs nothing but its upload.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DwellError } from '../errors.js';
import type { AppRecord } from '../schemas/app.js';
import type { AppRegistry } from '../apps/registry.js';

export const STALE_AFTER_S = 300;

export interface AuthHeaders { appKey: string; timestamp: string; signature: string }

/** Resolves the app and checks the clock; the body's hash is not known yet. */
export function checkHeaders(h: AuthHeaders, apps: AppRegistry, now = Date.now()): AppRecord {
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

export function stringToSign(timestamp: string, method: string, pathAndQuery: string, bodySha256Hex: string): string {
  return `${timestamp}\n${method.toUpperCase()}\n${pathAndQuery}\n${bodySha256Hex}`;
}

export function sign(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
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

/**
 * Signatures seen within the stale window, per app. A signature can only be replayed while its
 * timestamp is fresh, so each entry lives until its timestamp leaves the window. Entries are
 * also filed by the second they expire, so a sweep drops whole expired seconds instead of
 * walking every entry (at 10,000 requests a second the window holds millions).
 */
export class ReplayCache {
  private readonly seen = new Map<string, number>();
  private readonly byExpiry = new Map<number, string[]>();
  private readonly timer: NodeJS.Timeout;

  constructor(sweepMs = 10_000) {
    this.timer = setInterval(() => this.sweep(), sweepMs);
    this.timer.unref();
  }

  /** Records the signature; throws if it was already seen and is still fresh. */
  claim(appKey: string, signature: string, timestampS: number, now = Date.now()): void {
    // 128 bits of the signature identify it as well as all 256, in half the memory.
    const key = appKey + ':' + signature.slice(0, 32);
    const expiryS = timestampS + STALE_AFTER_S;
    const prev = this.seen.get(key);
    if (prev !== undefined && prev * 1000 >= now) throw new DwellError('replayed_request', 'this signature was already used; sign each request with a fresh timestamp');
    this.seen.set(key, expiryS);
    const bucket = this.byExpiry.get(expiryS);
    if (bucket) bucket.push(key);
    else this.byExpiry.set(expiryS, [key]);
  }

  get size(): number {
    return this.seen.size;
  }

  sweep(now = Date.now()): void {
    for (const [expiryS, keys] of this.byExpiry) {
      if (expiryS * 1000 >= now) continue;
      // A key claimed again later has a later expiry filed elsewhere: keep it.
      for (const key of keys) if ((this.seen.get(key) ?? Infinity) <= expiryS) this.seen.delete(key);
      this.byExpiry.delete(expiryS);
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
