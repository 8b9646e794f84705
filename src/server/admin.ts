/**
 * The admin API (contract §6): apps and their deliveries, behind a bearer token. With no token
 * configured every admin call answers 401, so a forgotten setting never opens it.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { DwellError } from '../errors.js';
import type { AppRegistry } from '../apps/registry.js';
import { CreateApp, DeliveryEvents, UpdateApp, publicApp } from '../schemas/app.js';
import type { TriggerQueue as Outbox } from '../delivery/outbox.js';
import { readBody, type RawBody } from '../http/body.js';
import { checkMediaType, parseJson, plainBytes } from '../http/json-body.js';
import { expectation, jsonObject, show } from '../schemas/check.js';
import type { Exchange, Reply } from '../http/reply.js';
import { singleQuery } from '../http/query.js';

export interface AdminDeps { apps: AppRegistry; outbox: Outbox; token: string }

export type AdminHandler = (deps: AdminDeps, params: Record<string, string>, body: unknown, ex: Exchange) => Promise<Reply> | Reply;

const digest = (s: string) => createHash('sha256').update(s).digest();

export function checkBearer(ex: Exchange, token: string): void {
  const given = /^Bearer (.+)$/i.exec(ex.header('authorization'))?.[1];
  if (!given) throw new DwellError('missing_auth', 'the admin API needs Authorization: Bearer <DWELL_ADMIN_TOKEN>');
  // Hash both sides so the comparison is constant-time whatever the lengths.
  if (!token || !timingSafeEqual(digest(given), digest(token))) throw new DwellError('invalid_token', 'the admin token is not valid');
}

/** Must be called synchronously from the uWS handler (the body callback is attached here). */
export function handleAdmin(ex: Exchange, deps: AdminDeps, params: Record<string, string>, handler: AdminHandler): void {
  try {
    checkBearer(ex, deps.token);
  } catch (err) {
    ex.fail(err);
    return;
  }
  let body: Promise<unknown>;
  try {
    // Contract §5: the customer endpoints' body rules, the media type refused before the body is read.
    if (ex.method !== 'GET') checkMediaType(ex);
    body = ex.method === 'GET' ? Promise.resolve(null) : readBody(ex, 64 << 10).then((b) => adminJson(ex, b));
  } catch (err) {
    ex.fail(err);
    return;
  }
  body.then((b) => handler(deps, params, b, ex)).then((r) => ex.send(r), (err) => ex.fail(err));
}

/** An empty body is `{}` (rotate-secret, replay and delete take none); anything else is a JSON object. */
async function adminJson(ex: Exchange, raw: RawBody): Promise<unknown> {
  const bytes = await plainBytes(ex, raw);
  return bytes.length ? jsonObject(parseJson(bytes)) : {};
}

function check<T>(schema: TSchema, value: unknown): T {
  // `delivery` is a union by method, whose error would name /delivery alone: its `events` list is
  // checked first, so an empty list or an unknown kind is named at /delivery/events (contract §3).
  const events = (value as { delivery?: { events?: unknown } } | null)?.delivery?.events;
  if (events !== undefined) fail(DeliveryEvents, events, '/delivery/events');
  fail(schema, value, '');
  return value as T;
}

function fail(schema: TSchema, value: unknown, prefix: string): void {
  const first = TypeCompiler.Compile(schema).Errors(value).First(); // admin calls are rare: compiling per call is fine
  if (!first) return;
  throw new DwellError('invalid_request', `${prefix + first.path || 'body'}: ${expectation(first)}, got ${show(first.value)}`, prefix + first.path);
}

export const adminRoutes: Array<[string, string, AdminHandler]> = [
  ['POST', '/admin/apps', async ({ apps }, _p, body) => {
    const { app, secret } = await apps.create(check<CreateApp>(CreateApp, body));
    return { status: 201, body: { ...publicApp(app), app_secret: secret } };
  }],
  ['GET', '/admin/apps/:key', ({ apps }, p) => {
    const app = apps.get(p.key);
    if (!app) throw new DwellError('not_found', `no app with key ${JSON.stringify(p.key)}`);
    return { status: 200, body: publicApp(app) };
  }],
  ['PATCH', '/admin/apps/:key', async ({ apps }, p, body) => {
    const app = await apps.update(p.key, check<UpdateApp>(UpdateApp, body));
    return { status: 200, body: publicApp(app) };
  }],
  ['POST', '/admin/apps/:key/rotate-secret', async ({ apps }, p) => {
    return { status: 200, body: { app_secret: await apps.rotateSecret(p.key) } };
  }],
  ['GET', '/admin/apps/:key/deliveries', async ({ apps, outbox }, p, _b, ex) => {
    if (!apps.get(p.key)) throw new DwellError('not_found', `no app with key ${JSON.stringify(p.key)}`);
    const status = singleQuery(ex.query).get('status') ?? 'pending';
    if (status !== 'pending' && status !== 'dead') throw new DwellError('invalid_request', `status is pending or dead, got ${JSON.stringify(status)}`, '/status');
    const deliveries = (await outbox.list(p.key, status)).map(({ body, ...state }) => ({ ...state, trigger: JSON.parse(body) }));
    return { status: 200, body: { status, count: deliveries.length, deliveries } };
  }],
  ['POST', '/admin/apps/:key/deliveries/replay', async ({ apps, outbox }, p) => {
    if (!apps.get(p.key)) throw new DwellError('not_found', `no app with key ${JSON.stringify(p.key)}`);
    return { status: 200, body: { replayed: await outbox.replayDead(p.key) } };
  }],
];
