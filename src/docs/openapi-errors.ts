/**
 * Contract §5 in the API document: one response per error status, its `error.code` narrowed to
 * the codes that status carries, and which statuses a route may answer, from what kind of route
 * it is (signed, with a body, with an id in its path) and what its description adds.
 */
import { STATUS } from '../errors.js';
import { ErrorAnswer } from '../schemas/error-answer.js';
import type { OperationDoc } from './openapi-operation.js';

const REASON: Record<number, string> = {
  400: 'The request is malformed or breaks a rule; `error.path` points at the fault',
  401: 'Not authenticated: missing or wrong signature or token, unknown app, stale or replayed request',
  403: "The app key in the path is not the signing app's",
  404: 'No such resource in this app',
  405: 'The path exists with another method (see `Allow`)',
  409: 'Conflicts with what exists',
  413: 'The body is over its limit',
  415: 'Content-Type or Content-Encoding not accepted',
  429: "Over the app's rate: retry after `Retry-After` seconds",
  500: 'A fault of the service (no internals in the message)',
  503: 'Starting, or shedding load: retry after `Retry-After` seconds',
};

const RETRY_AFTER = { 'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } } };

/** `components.responses`: Error400, Error401, … for every status some code has. */
export function errorResponses(): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const [code, status] of Object.entries(STATUS)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[`Error${status}`] = {
      description: `${REASON[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
      content: { 'application/json': { schema: JSON.parse(JSON.stringify(ErrorAnswer(codes))) } },
    };
  }
  return out;
}

/**
 * The error statuses a route may answer. Every signed or admin request other than a GET has its
 * body read under a cap (413), whether or not the route takes one; an admin one's media type is
 * checked and a body it sends parsed (415, 400), and a route with a body does both.
 */
export function errorStatuses(op: OperationDoc, method: string, pattern: string): number[] {
  const s = new Set<number>([500, ...(op.errors ?? [])]);
  const admin = op.auth === 'admin' || op.auth === 'metrics';
  const readsBody = method !== 'GET' && (op.auth === 'signed' || admin);
  if (op.auth === 'signed') [401, 429, 503].forEach((x) => s.add(x));
  if (admin) s.add(401);
  if (readsBody) s.add(413);
  if (op.body || (readsBody && admin)) [400, 413, 415].forEach((x) => s.add(x));
  if (op.query?.length) s.add(400);
  if (pattern.includes('/:app_key')) s.add(403);
  // Any path parameter but the signer's own app key names something that may not exist.
  if (/\/:(?!app_key(\/|$))\w+/.test(pattern)) s.add(404);
  return [...s].filter((x) => Object.values(STATUS).includes(x)).sort((a, b) => a - b);
}
