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
  body: string;
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
