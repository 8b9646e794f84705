/**
 * For customers' receivers: checks a postback's `timestamp` and `signature` query parameters
 * (contract §3) against the raw body, in constant time, within a tolerance of clock skew.
 * Depends on nothing but node:crypto so it can be copied into a receiver as it is.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { wallNow } from '../time/wall.js';

export type PostbackQuery = URLSearchParams | string | Record<string, string | string[] | undefined>;

/**
 * True when the request was signed with `secret` (or one of several, e.g. the old and the new
 * one around a rotation) no more than `toleranceS` seconds from now.
 *
 * `query`: a URLSearchParams, a query string (`"timestamp=…&signature=…"`, with or without the
 * leading `?`, or a whole URL or path), or an object such as Express's `req.query`.
 * `rawBody`: the body bytes exactly as received, before any JSON parsing.
 */
export function verifyPostback(
  secret: string | readonly string[],
  query: PostbackQuery,
  rawBody: string | Uint8Array,
  toleranceS = 300,
  nowMs = wallNow(),
): boolean {
  const timestamp = param(query, 'timestamp');
  const signature = param(query, 'signature');
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceS) return false;
  const given = Buffer.from(signature, 'hex');
  let ok = false;
  // Every secret is tried (no early exit), so the time taken says nothing about which matched.
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    const expected = createHmac('sha256', s).update(`${timestamp}.`).update(rawBody).digest();
    ok = timingSafeEqual(expected, given) || ok;
  }
  return ok;
}

function param(query: PostbackQuery, name: string): string | undefined {
  if (query instanceof URLSearchParams) return query.get(name) ?? undefined;
  if (typeof query === 'string') {
    const q = query.includes('?') ? query.slice(query.indexOf('?') + 1) : query;
    return new URLSearchParams(q.split('#')[0]).get(name) ?? undefined;
  }
  const v = query[name];
  return Array.isArray(v) ? v[0] : v;
}
