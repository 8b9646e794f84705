/**
 * One signed request to the service (contract §1), gzipped, with the retries of retry.ts.
 *
 * Every attempt is signed anew. A POST's timestamp is later than the one before for the same
 * request: the server remembers signatures of POSTs (401 `replayed_request` for the same one
 * twice), and a 503 may come after the first attempt's signature was stored. The same body
 * POSTed twice to the same path within one second is held back to the next second likewise.
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { bodySha256, signature } from '../signing.js';
import { DwellApiError } from './api-error.js';
import { backoffMs, isConnectionError, type RetryOptions, retryableStatus, retryAfterMs } from './retry.js';
import { wallNow } from '../time/wall.js';

const gzip = promisify(gzipCallback);

export interface TransportOptions {
  url: string;
  appKey: string;
  appSecret: string;
  retry: Required<RetryOptions>;
  /** Gzip request bodies (contract §2 accepts both; gzip costs the server less to receive). */
  gzip: boolean;
  /** Per attempt; a timed-out attempt is not retried (the server may have acted on it). */
  timeoutMs: number;
  fetch: typeof fetch;
}

export class Transport {
  /** Last timestamp used per method, path and body hash: a repeat within the second waits. */
  private readonly lastStamp = new Map<string, number>();
  private readonly base: string;

  constructor(private readonly o: TransportOptions) {
    this.base = o.url.replace(/\/+$/, '');
  }

  async request<T>(method: 'GET' | 'POST', pathAndQuery: string, body?: unknown): Promise<T> {
    const json = body === undefined ? undefined : JSON.stringify(body);
    const bytes = json === undefined ? new Uint8Array(0) : this.o.gzip ? new Uint8Array(await gzip(json)) : new TextEncoder().encode(json);
    const hash = bodySha256(bytes);
    // Signed as fetch will send it: the URL parser's normalisation (percent-encoding) included.
    const target = new URL(this.base + pathAndQuery);
    const signedPath = target.pathname + target.search;
    for (let retry = 0; ; retry++) {
      // A GET is never refused as a replay (contract §1): only changes need a fresh second.
      const timestamp = String(method === 'GET' ? Math.floor(wallNow() / 1000) : await this.stamp(`${method} ${signedPath} ${hash}`));
      const headers: Record<string, string> = {
        'x-app-key': this.o.appKey,
        'x-timestamp': timestamp,
        'x-signature': signature(this.o.appSecret, timestamp, method, signedPath, hash),
        accept: 'application/json',
      };
      if (bytes.length) headers['content-type'] = 'application/json';
      if (bytes.length && this.o.gzip) headers['content-encoding'] = 'gzip';
      let res: Response;
      try {
        res = await this.o.fetch(target, {
          method, headers, body: bytes.length ? bytes : undefined, signal: AbortSignal.timeout(this.o.timeoutMs),
        });
      } catch (err) {
        if (!isConnectionError(err) || retry >= this.o.retry.retries) throw err;
        await this.o.retry.wait(backoffMs(retry + 1, this.o.retry));
        continue;
      }
      const answer = parse(await res.text());
      if (res.ok) return answer as T;
      const after = retryAfterMs(res.headers.get('retry-after'));
      const error = new DwellApiError(res.status, answer, after === undefined ? undefined : Math.ceil(after / 1000));
      if (!retryableStatus(res.status) || retry >= this.o.retry.retries) throw error;
      const delay = after ?? backoffMs(retry + 1, this.o.retry);
      if (delay > this.o.retry.maxDelayMs) throw error;
      await this.o.retry.wait(delay);
    }
  }

  /** Unix seconds, later than any used before for the same request. */
  private async stamp(key: string): Promise<number> {
    let now = Math.floor(wallNow() / 1000);
    const last = this.lastStamp.get(key);
    if (last !== undefined && now <= last) {
      await this.o.retry.wait((last + 1) * 1000 - wallNow());
      now = Math.max(last + 1, Math.floor(wallNow() / 1000));
    }
    if (this.lastStamp.size > 1000) {
      for (const [k, s] of this.lastStamp) if (s < now - 1) this.lastStamp.delete(k);
    }
    this.lastStamp.set(key, now);
    return now;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
