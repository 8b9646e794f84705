/**
 * When the client tries a request again, and after how long. Only what the server did not refuse
 * is retried: 429 (over the app's rate), 503 (starting or shedding load) and failures to reach it
 * at all. Any other 4xx is the server's final word on that request, and a 500 may have done part
 * of the work, so neither is sent again.
 */
import { wallNow } from '../time/wall.js';

export interface RetryOptions {
  /** Further attempts after the first (default 4). 0 turns retrying off. */
  retries?: number;
  /** First backoff delay when the server names none, doubled per attempt (default 250 ms). */
  baseDelayMs?: number;
  /**
   * Longest wait the client accepts before an attempt (default 30 s). A `Retry-After` beyond it
   * ends the retries: the error is thrown instead of a long sleep in the caller's request.
   */
  maxDelayMs?: number;
  /**
   * How the client waits before an attempt, ms (default: a timer). A test of code that uses the
   * client can pass one that records the delay and resolves at once.
   */
  wait?: (ms: number) => Promise<void>;
}

export const RETRY_DEFAULTS: Required<RetryOptions> = {
  retries: 4, baseDelayMs: 250, maxDelayMs: 30_000, wait: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
};

/** HTTP statuses worth another attempt. */
export const retryableStatus = (status: number): boolean => status === 429 || status === 503;

/**
 * `fetch` failed before any answer: refused, reset, DNS, TLS. Undici reports these as a
 * TypeError whose `cause` holds the system error; a timeout or an abort is the caller's choice
 * and is not retried.
 */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return false;
  return err instanceof TypeError && (err.cause !== undefined || /fetch failed/i.test(err.message));
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable.
 */
export function retryAfterMs(header: string | null, nowMs = wallNow()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Exponential backoff with jitter for attempt `n` (1 = the first retry): between half and all
 * of base·2^(n-1), so many clients refused at once do not all come back at once.
 */
export function backoffMs(n: number, opts: Required<RetryOptions>, random = Math.random): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (n - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
