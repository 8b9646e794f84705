/** A customer's client: creates apps through the admin API and signs requests per contract §1. */
import { gzipSync } from 'node:zlib';
import { bodySha256, signature } from '../../src/signing.js';
import { ADMIN_TOKEN } from './server.js';

export interface TestApp { app_key: string; app_secret: string; delivery: Record<string, unknown> }

export async function createApp(url: string, delivery: Record<string, unknown> = { method: 'sync' }, extra: Record<string, unknown> = {}): Promise<TestApp> {
  const res = await fetch(url + '/admin/apps', {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'test app', delivery, ...extra }),
  });
  if (res.status !== 201) throw new Error(`create app: ${res.status} ${await res.text()}`);
  return res.json() as Promise<TestApp>;
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

/** Sends a signed request; answers status, parsed body and headers. */
export async function signed(url: string, app: TestApp, pathAndQuery: string, body?: unknown, opts: SignOptions = {}): Promise<{ status: number; body: any; headers: Headers }> {
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
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json, headers: res.headers };
}
