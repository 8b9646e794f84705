/** A customer's client: creates apps through the admin API and signs requests per contract §1. */
import { gzipSync } from 'node:zlib';
import { bodySha256, signature } from '../../src/signing.js';
import { ADMIN_TOKEN } from './server.js';
import { DwellAdmin } from '../../src/client/index.js';
import type { CreateApp } from '../../src/schemas/app.js';

export interface TestApp { app_key: string; app_secret: string; delivery: Record<string, unknown> }

/** The admin API of the server at `url`, as an operator's script calls it (`dwell/client`). */
export const adminOf = (url: string) => new DwellAdmin({ url, token: ADMIN_TOKEN });

export async function createApp(url: string, delivery: Record<string, unknown> = { method: 'sync' }, extra: Record<string, unknown> = {}): Promise<TestApp> {
  return adminOf(url).createApp({ name: 'test app', delivery, ...extra } as CreateApp) as Promise<TestApp>;
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
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json, headers: res.headers };
}
