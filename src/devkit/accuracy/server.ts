/**
 * The accuracy harness (with src/research): the real server bench:accuracy measures (bench/accuracy.ts),
 * started on a temp data dir, a sync
 * app created through the admin API, the app's beacons imported, requests signed per contract §1.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { bodySha256, signature } from '../../signing.js';
import { serveReady } from '../dwell-serve.js';
import { wallNow } from '../../time/wall.js';

const ADMIN = 'bench-accuracy-admin-token';
const say = (msg: string): void => { process.stderr.write(`[bench:accuracy] ${msg}\n`); };

export interface App { app_key: string; app_secret: string }
export interface Line { seq: number; send_at: string; body: { request_id?: string; advertising_id?: string; user_id?: string } }

export async function startServer(store: string, dataDir: string, workers?: string): Promise<{ url: string; proc: ChildProcess }> {
  const svc = await serveReady({
    name: 'dwell',
    env: { ...process.env, PORT: '0', DWELL_HOST: '127.0.0.1', DWELL_VENUES: store, DWELL_DATA_DIR: dataDir,
      DWELL_ADMIN_TOKEN: ADMIN, DWELL_RATE_LIMIT: '0', ...(workers ? { DWELL_WORKERS: workers } : {}) },
    startTimeoutMs: 60_000,
    readyTimeoutMs: 60_000,
  });
  return { url: svc.url, proc: svc.proc };
}

/** DIR/beacons.jsonl through the registry's bulk import (contract §9), gzip, signed as any request. */
export async function importBeacons(url: string, app: App, file: string): Promise<void> {
  const bytes = gzipSync(fs.readFileSync(file));
  const p = `/v2/apps/${app.app_key}/beacons/import`;
  const ts = String(Math.floor(wallNow() / 1000));
  const res = await fetch(url + p, {
    method: 'POST', body: bytes,
    headers: { 'x-app-key': app.app_key, 'x-timestamp': ts, 'x-signature': signature(app.app_secret, ts, 'POST', p, bodySha256(bytes)), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
  });
  const out = await res.json() as { created: number; updated: number; errors: unknown[] };
  if (res.status !== 200 || out.errors.length) throw new Error(`beacon import: ${res.status} ${JSON.stringify(out).slice(0, 500)}`);
  say(`imported ${out.created} beacons (${out.updated} updated) from ${file}`);
}

export async function createApp(url: string): Promise<App> {
  const res = await fetch(url + '/admin/apps', {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench accuracy', delivery: { method: 'sync' } }),
  });
  if (res.status !== 201) throw new Error(`create app: ${res.status} ${await res.text()}`);
  return res.json() as Promise<App>;
}

/** Contract §1: HMAC-SHA256 over "timestamp\nmethod\npath\nsha256(body bytes)". */
export async function detect(url: string, app: App, json: string): Promise<unknown> {
  const bytes = gzipSync(json);
  const ts = String(Math.floor(wallNow() / 1000));
  const sig = signature(app.app_secret, ts, 'POST', '/v1/detect', bodySha256(bytes));
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url + '/v1/detect', {
        method: 'POST', body: bytes,
        headers: { 'x-app-key': app.app_key, 'x-timestamp': ts, 'x-signature': sig, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
    } catch (err) {
      // A kept-alive connection the server closed as idle (uWS: 10 s, reached on a loaded machine
      // between the admin call and the first detection) fails before the request is read: resend.
      if ((err as { cause?: { code?: string } }).cause?.code === 'UND_ERR_SOCKET' && attempt < 3) continue;
      throw err;
    }
    const text = await res.text();
    if ((res.status === 429 || res.status === 503) && attempt < 20) { await new Promise((r) => setTimeout(r, 200 * (attempt + 1))); continue; }
    try { return JSON.parse(text); } catch { return { result: 'ERROR', status: res.status, text }; }
  }
}

