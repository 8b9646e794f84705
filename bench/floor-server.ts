/**
 * The floor: the least any server must do per detection request, on uWebSockets.js. It reads
 * the body, checks the signature as contract §1 says (headers, clock, HMAC-SHA256 over the raw
 * bytes in constant time, replays), gunzips, `JSON.parse`s and answers 200
 * `{"result":"SUCCESS"}`. No validation, no detection: the benchmark's yardstick for Dwell.
 *
 * One app, from the environment: FLOOR_APP_KEY, FLOOR_APP_SECRET. PORT (default 0: a free one),
 * FLOOR_HOST (default 127.0.0.1). Writes `{"msg":"listening","port":N}` on stderr once ready.
 */
import uWS from 'uWebSockets.js';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { stringToSign } from '../src/signing.js';

const APP_KEY = process.env.FLOOR_APP_KEY ?? '';
const APP_SECRET = process.env.FLOOR_APP_SECRET ?? '';
const HOST = process.env.FLOOR_HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 0);
const MAX_SENT = 1 << 20;
const MAX_INFLATED = 16 << 20;
const STALE_AFTER_S = 300;

if (!APP_KEY || !APP_SECRET) {
  process.stderr.write(JSON.stringify({ level: 'error', msg: 'FLOOR_APP_KEY and FLOOR_APP_SECRET are required' }) + '\n');
  process.exit(2);
}

/** Signatures seen within the stale window → when they expire (ms). */
const seen = new Map<string, number>();
setInterval(() => {
  const now = Date.now();
  for (const [sig, until] of seen) if (until < now) seen.delete(sig);
}, 10_000).unref();

function answer(res: uWS.HttpResponse, status: string, body: string): void {
  res.cork(() => {
    res.writeStatus(status).writeHeader('content-type', 'application/json').end(body);
  });
}

const error = (code: string) => JSON.stringify({ result: 'ERROR', error: { code, message: code } });
const SUCCESS = JSON.stringify({ result: 'SUCCESS' });

const app = uWS.App();
app.post('/v1/detect', (res, req) => {
  // The request object is valid only in this synchronous part: copy what is needed.
  const appKey = req.getHeader('x-app-key');
  const timestamp = req.getHeader('x-timestamp');
  const sig = req.getHeader('x-signature');
  const gzipped = req.getHeader('content-encoding').toLowerCase() === 'gzip';
  const pathAndQuery = req.getUrl() + (req.getQuery() ? '?' + req.getQuery() : '');
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });

  if (!appKey || !timestamp || !sig) return answer(res, '401 Unauthorized', error('missing_auth'));
  if (appKey !== APP_KEY) return answer(res, '401 Unauthorized', error('unknown_app'));
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > STALE_AFTER_S) {
    return answer(res, '401 Unauthorized', error('stale_timestamp'));
  }

  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let size = 0;
  res.onData((chunk, isLast) => {
    if (aborted) return;
    size += chunk.byteLength;
    if (size > MAX_SENT) {
      aborted = true;
      answer(res, '413 Payload Too Large', error('body_too_large'));
      return;
    }
    const copy = Buffer.from(chunk.slice(0)); // uWS reuses the chunk after this callback
    hash.update(copy);
    chunks.push(copy);
    if (!isLast) return;

    const text = stringToSign(timestamp, 'POST', pathAndQuery, hash.digest('hex'));
    const want = createHmac('sha256', APP_SECRET).update(text).digest();
    const given = /^[0-9a-f]{64}$/.test(sig) ? Buffer.from(sig, 'hex') : null;
    if (!given || !timingSafeEqual(want, given)) return answer(res, '401 Unauthorized', error('invalid_signature'));
    const now = Date.now();
    const prev = seen.get(sig);
    if (prev !== undefined && prev >= now) return answer(res, '401 Unauthorized', error('replayed_request'));
    seen.set(sig, (Number(timestamp) + STALE_AFTER_S) * 1000);

    try {
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      const json = gzipped ? gunzipSync(raw, { maxOutputLength: MAX_INFLATED }) : raw;
      JSON.parse(json.toString('utf8'));
    } catch {
      return answer(res, '400 Bad Request', error('invalid_request'));
    }
    answer(res, '200 OK', SUCCESS);
  });
});
app.any('/*', (res) => {
  res.writeStatus('404 Not Found').writeHeader('content-type', 'application/json').end(error('not_found'));
});

app.listen(HOST, PORT, (socket) => {
  if (!socket) {
    process.stderr.write(JSON.stringify({ level: 'error', msg: 'cannot listen', host: HOST, port: PORT }) + '\n');
    process.exit(1);
  }
  const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
  process.stderr.write(JSON.stringify({ level: 'info', msg: 'listening', port, host: HOST }) + '\n');
  const stop = () => {
    uWS.us_listen_socket_close(socket);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
});
