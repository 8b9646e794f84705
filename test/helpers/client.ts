/**
 * A customer's client: creates apps through the admin API and signs requests per contract §1.
 * Every answer is checked against the server's /openapi.json (openapi-check.ts).
 */
import { gzipSync } from 'node:zlib';
import { bodySha256, signature } from '../../src/signing.js';
import { checkResponse } from './openapi-check.js';
import { ADMIN_TOKEN } from './server.js';
import { DwellAdmin } from '../../src/client/index.js';
import type { CreateApp } from '../../src/schemas/app.js';

export interface TestApp { app_key: string; app_secret: string; delivery: Record<string, unknown> }

/** The admin API of the server at `url`, as an operator's script calls it (`dwell/client`). */
export const adminOf = (url: string) => new DwellAdmin({ url, token: ADMIN_TOKEN, fetch: checkedFetch(url) });

/** fetch with every answer checked against the server's /openapi.json, for `dwell/client`'s classes. */
export function checkedFetch(base: string): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const text = await res.text();
    const target = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    await checkResponse(base, method, target.pathname + target.search, { status: res.status, headers: res.headers, text });
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

export async function createApp(url: string, delivery: Record<string, unknown> = { method: 'sync' }, extra: Record<string, unknown> = {}): Promise<TestApp> {
  return adminOf(url).createApp({ name: 'test app', delivery, ...extra } as CreateApp) as Promise<TestApp>;
}

/** An admin call with the test token: `body` sent as JSON unless it is a string or a Buffer. */
export async function admin(url: string, pathAndQuery: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<SignedAnswer> {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  const raw = init.body === undefined || typeof init.body === 'string' || Buffer.isBuffer(init.body) ? init.body as string | Buffer | undefined : JSON.stringify(init.body);
  const res = await fetch(url + pathAndQuery, {
    method, body: raw, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(raw === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
  });
  return answer(url, method, pathAndQuery, res);
}

async function answer(url: string, method: string, pathAndQuery: string, res: Response): Promise<SignedAnswer> {
  const text = await res.text();
  await checkResponse(url, method, pathAndQuery, { status: res.status, headers: res.headers, text });
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json, headers: res.headers };
}

export interface SignOptions {
  method?: string;
  /** Raw bytes to send; by default the JSON body gzipped. */
  raw?: Buffer;
  gzip?: boolean;
  timestamp?: number;
  secret?: string;
  headers?: Record<string, string>;
}

export function signHeaders(app: TestApp, method: string, pathAndQuery: string, bytes: Buffer, opts: SignOptions = {}): Record<string, string> {
  const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  return { 'x-app-key': app.app_key, 'x-timestamp': ts, 'x-signature': signature(opts.secret ?? app.app_secret, ts, method, pathAndQuery, bodySha256(bytes)) };
}

/**
 * Timestamps for a run of requests whose bodies may repeat: each a second earlier than the one
 * before, so an identical body is never taken for a replay (its signature differs).
 */
export function earlierEachTime(): () => number {
  let sent = 0;
  return () => Math.floor(Date.now() / 1000) - sent++;
}

/** `body` is whatever JSON the server answered (or its text when not JSON). */
export interface SignedAnswer { status: number; body: any; headers: Headers }

/** Sends a signed request; answers status, parsed body and headers. */
export async function signed(url: string, app: TestApp, pathAndQuery: string, body?: unknown, opts: SignOptions = {}): Promise<SignedAnswer> {
  const method = opts.method ?? (body === undefined && !opts.raw ? 'GET' : 'POST');
  const gzip = opts.gzip ?? true;
  const bytes = opts.raw ?? (body === undefined ? Buffer.alloc(0) : gzip ? gzipSync(JSON.stringify(body)) : Buffer.from(JSON.stringify(body)));
  const headers: Record<string, string> = {
    ...signHeaders(app, method, pathAndQuery, bytes, opts),
    ...(bytes.length ? { 'content-type': 'application/json' } : {}),
    ...(gzip && bytes.length ? { 'content-encoding': 'gzip' } : {}),
    ...opts.headers,
  };
  const res = await fetch(url + pathAndQuery, { method, headers, body: bytes.length ? bytes : undefined });
  return answer(url, method, pathAndQuery, res);
}
