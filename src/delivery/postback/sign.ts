/**
 * The postback request of contract §3: `POST <url>?timestamp=<unix s>&signature=<hex>`, the
 * signature being lowercase hex HMAC-SHA256(app_secret, `<timestamp>.<raw body>`), with
 * `Content-Type: application/json` and `X-Trigger-Id: <data.id>`.
 */
import { createHmac } from 'node:crypto';
import type { Payload } from '../outbox.js';

export function signPostback(secret: string, timestampS: number | string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestampS}.`).update(rawBody).digest('hex');
}

export interface PostbackRequest {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * Builds the signed request. The customer's own query parameters are kept; ours are appended
 * (a `timestamp` or `signature` already in the URL is replaced, so there is exactly one of each).
 */
export function postbackRequest(target: URL, secret: string, payload: Payload, nowMs: number): PostbackRequest {
  const { body } = payload;
  const timestamp = Math.floor(nowMs / 1000);
  const url = new URL(target);
  url.searchParams.set('timestamp', String(timestamp));
  url.searchParams.set('signature', signPostback(secret, timestamp, body));
  return {
    url: url.toString(),
    body,
    headers: {
      'content-type': 'application/json',
      'x-trigger-id': payload.id,
      'user-agent': 'Dwell-Postback/1',
    },
  };
}

const TS = '9999999999'; // placeholders, kept as they are by URLSearchParams' serialisation
const SIG = 'dwellsignatureplaceholder';

/**
 * `postbackRequest`'s URL for one target as a template, built once: the same text for every
 * timestamp and signature, without parsing and serialising a URL per send. Undefined in the odd
 * case where the placeholders cannot be found exactly once (then build it per send).
 */
export function signedPathTemplate(target: URL): ((timestampS: number, signature: string) => string) | undefined {
  const url = new URL(target);
  url.searchParams.set('timestamp', TS);
  url.searchParams.set('signature', SIG);
  const text = url.pathname + url.search;
  if (text.split(TS).length !== 2 || text.split(SIG).length !== 2) return undefined;
  if (text.indexOf(TS) < text.indexOf(SIG)) {
    const [a, rest] = text.split(TS);
    const [b, c] = rest.split(SIG);
    return (ts, sig) => a + ts + b + sig + c;
  }
  const [a, rest] = text.split(SIG);
  const [b, c] = rest.split(TS);
  return (ts, sig) => a + sig + b + ts + c;
}
