/**
 * The two customer endpoints of contract §7, signed like every other (the app in the path must be
 * the signer: 403 otherwise, as on the geofence routes).
 *
 * Which user: the one identity rule (users/identity.ts) keys a user by `advertising_id` when a
 * request had one, else by `user_id`. So `{"advertising_id": A}` erases the user keyed A,
 * `{"user_id": U}` the user keyed U (whose requests carried no advertising id), and both erase
 * both. A trigger a sender holds at that moment (a postback in flight, a bucket batch being
 * filled) may still arrive once; nothing of the user is sent after that (at least once). The
 * erase covers what this node's requests of the app that started before it store (it waits for
 * them, apps/in-flight.ts); another node's requests in flight at that moment are not waited for.
 */
import { DwellError } from '../errors.js';
import { bound, type AppHandler } from '../http/app-route.js';
import { readJson } from '../http/json-body.js';
import { eraseUsers } from './erase.js';
import { exportUser } from './export.js';
import type { PrivacyKinds } from './kinds.js';
import { deleteApp } from './delete-app.js';
import type { AppRegistry } from '../apps/registry.js';
import type { InFlight } from '../apps/in-flight.js';
import type { Reply } from '../http/reply.js';

const BASE = '/v2/apps/:app_key/users';
const ID_CHARS = 256;
const FIELDS = ['advertising_id', 'user_id'] as const;

export function privacyRoutes(s: PrivacyKinds, inFlight: InFlight): Array<[string, string, AppHandler]> {
  return [
    ['POST', `${BASE}/erase`, async (p, ex, app, raw) => {
      bound(p, app);
      const users = idsIn(await readJson(ex, raw));
      // A detection of the user already in flight stores before the erase, not after it.
      await inFlight.startedBefore(app.app_key, ex);
      const erased = await eraseUsers(s, app.app_key, users);
      return { status: 200, body: { result: 'SUCCESS', erased } };
    }],
    ['GET', `${BASE}/export`, async (p, ex, app) => {
      bound(p, app);
      const q = new URLSearchParams(ex.query);
      const users = idsIn(Object.fromEntries([...q.keys()].map((k) => [k, q.getAll(k).length === 1 ? q.get(k) : q.getAll(k)])), 'query');
      return { status: 200, body: { app_key: app.app_key, users: await Promise.all(users.map((u) => exportUser(s, app.app_key, u))) } };
    }],
  ];
}

/** The ids named, advertising_id first; at least one, each a non-empty string of at most 256 characters. */
function idsIn(body: unknown, where: 'body' | 'query' = 'body'): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DwellError('invalid_request', `the ${where} is an object with advertising_id and/or user_id, got ${Array.isArray(body) ? 'an array' : JSON.stringify(body)}`);
  }
  const o = body as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra.length) throw new DwellError('invalid_request', `the ${where} takes advertising_id and user_id only, got ${JSON.stringify(extra[0])}`, '/' + extra[0]);
  const out: string[] = [];
  for (const f of FIELDS) {
    const v = o[f];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '' || [...v].length > ID_CHARS) {
      throw new DwellError('invalid_request', `${f} is a string of 1 to ${ID_CHARS} characters, got ${typeof v === 'string' ? `${[...v].length} characters` : JSON.stringify(v)}`, '/' + f);
    }
    out.push(v);
  }
  if (out.length === 0) throw new DwellError('invalid_request', `the ${where} names the user: advertising_id, user_id or both, got neither`);
  return out;
}

/** `DELETE /admin/apps/<app_key>`, behind the admin token like the rest of contract §6. */
export function privacyAdminRoutes(apps: AppRegistry, s: PrivacyKinds): Array<[string, string, (deps: unknown, p: Record<string, string>) => Promise<Reply>]> {
  return [
    ['DELETE', '/admin/apps/:key', async (_deps, p) => {
      const removed = await deleteApp(apps, s, p.key);
      if (!removed) throw new DwellError('not_found', `no app with key ${JSON.stringify(p.key)}`);
      return { status: 200, body: { deleted: p.key, removed } };
    }],
  ];
}
