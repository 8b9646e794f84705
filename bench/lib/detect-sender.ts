/**
 * The client half of the HTTP benchmarks (bench:http, bench:cluster): keep-alive pools, a `Send`
 * that posts the next prepared gzip body to /v1/detect signed with a fresh timestamp, the error
 * answers it saw (reported, never hidden), and a sync app made through the admin API.
 */
import { Pool } from 'undici';
import { signature } from '../../src/signing.js';
import type { Send } from './load.js';
import type { BodyPool, PreparedBody } from './signing.js';
import { DwellAdmin } from '../../src/client/index.js';

export const DETECT_PATH = '/v1/detect';

export interface Target { appKey: string; secret: string }

/** Error answers seen, by status, with the first body of each. */
export type ErrorSamples = Map<string, { count: number; example: string }>;

export function newPool(url: string, connections: number): Pool {
  return new Pool(url, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
    connectTimeout: 5_000,
  });
}

function note(errors: ErrorSamples, key: string, example: string): void {
  const e = errors.get(key);
  if (e) e.count++;
  else errors.set(key, { count: 1, example });
}

/** The headers of contract §1 for `body` sent now. */
export function signedHeaders(target: Target, body: PreparedBody, ts = Math.floor(Date.now() / 1000)): Record<string, string> {
  const timestamp = String(ts);
  return {
    'content-type': 'application/json',
    'content-encoding': 'gzip',
    'x-app-key': target.appKey,
    'x-timestamp': timestamp,
    'x-signature': signature(target.secret, timestamp, 'POST', DETECT_PATH, body.sha256),
  };
}

/** Posts `body` once; answers the status (0 for a transport error), errors noted in `errors`. */
export async function postDetect(pool: Pool, target: Target, body: PreparedBody, errors: ErrorSamples, ts = Math.floor(Date.now() / 1000)): Promise<number> {
  const res = await pool.request({ path: DETECT_PATH, method: 'POST', headers: signedHeaders(target, body, ts), body: body.gz })
    .catch((err: Error) => {
      note(errors, `transport: ${(err as NodeJS.ErrnoException).code ?? err.name}`, err.message);
      return null;
    });
  if (!res) return 0;
  if (res.statusCode >= 200 && res.statusCode < 300) {
    await res.body.dump();
  } else {
    note(errors, String(res.statusCode), (await res.body.text().catch(() => '')).slice(0, 300));
  }
  return res.statusCode;
}

/** A `Send` posting the pool's next body (never the same signature twice). */
export function makeSender(pool: Pool, target: Target, bodies: BodyPool, errors: ErrorSamples): Send {
  return () => {
    const ts = Math.floor(Date.now() / 1000);
    return postDetect(pool, target, bodies.take(ts), errors, ts);
  };
}

/** A `Send` that takes turns over several senders (one per node: load alternated between nodes). */
export function alternate(senders: readonly Send[]): Send {
  let turn = 0;
  return () => senders[turn++ % senders.length]();
}

/** Creates a sync app through the admin API of the server at `url`. */
export async function createSyncApp(url: string, adminToken: string, name = 'bench'): Promise<Target> {
  const app = await new DwellAdmin({ url, token: adminToken }).createApp({ name, delivery: { method: 'sync' } });
  return { appKey: app.app_key, secret: app.app_secret };
}
