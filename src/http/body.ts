/**
 * Request bodies: read as they stream in under the as-sent cap while hashing, then (after the
 * signature is checked) inflated under the decompressed cap; `maxOutputLength` makes zlib stop
 * at the cap instead of growing a bomb in memory. Small JSON endpoints inflate on libuv's thread
 * pool (`inflate`), so a large body does not block the event loop; detection inflates in its
 * worker (`inflateSync`), which skips two thread hand-offs a request.
 */
import { createHash } from 'node:crypto';
import { gunzip, gunzipSync } from 'node:zlib';
import { DwellError } from '../errors.js';
import type { Exchange } from './reply.js';

export const MAX_SENT_BYTES = 1 << 20;
export const MAX_INFLATED_BYTES = 16 << 20;

export interface RawBody { bytes: Buffer; sha256: string }

/**
 * Collects the body. If the client goes away the promise never settles and the exchange's abort
 * handling cleans up. Past the cap it rejects at once; the answer then discards the rest.
 */
export function readBody(ex: Exchange, limit = MAX_SENT_BYTES): Promise<RawBody> {
  return new Promise((resolve, reject) => {
    const declaredLength = Number(ex.header('content-length') || 0);
    if (declaredLength > limit) {
      reject(new DwellError('body_too_large', `the body is at most ${limit} bytes as sent, Content-Length says ${declaredLength}`));
      return;
    }
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    ex.onBody((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > limit) {
        failed = true;
        reject(new DwellError('body_too_large', `the body is at most ${limit} bytes as sent`));
        return;
      }
      // The chunk is the server's only for this call (uWS neuters it after): copy it.
      const copy = Buffer.from(chunk.slice(0));
      hash.update(copy);
      chunks.push(copy);
      // Buffer.concat would take a small result from the shared pool: the body must own its
      // memory to be moved to a worker rather than copied with its neighbours.
      if (isLast) resolve({ bytes: chunks.length === 1 ? chunks[0] : concatOwned(chunks, size), sha256: hash.digest('hex') });
    });
  });
}

export function inflate(bytes: Buffer, limit = MAX_INFLATED_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(bytes, { maxOutputLength: limit }, (err, out) => (err ? reject(inflateError(err, limit)) : resolve(out)));
  });
}

/** The same, in the calling thread: for worker threads, whose time this is meant to spend. */
export function inflateSync(bytes: Uint8Array, limit = MAX_INFLATED_BYTES): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (err) {
    throw inflateError(err as Error, limit);
  }
}

function inflateError(err: Error, limit: number): DwellError {
  if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
    return new DwellError('body_too_large', `the body inflates to more than ${limit} bytes`);
  }
  return new DwellError('invalid_gzip', `the body is not valid gzip (${err.message})`);
}

function concatOwned(chunks: Buffer[], size: number): Buffer {
  const out = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}

const EMPTY_SHA256 = createHash('sha256').digest('hex');
export const emptyBody = (): RawBody => ({ bytes: Buffer.alloc(0), sha256: EMPTY_SHA256 });
