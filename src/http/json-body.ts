/**
 * JSON request bodies, one way for every endpoint: the media types we read (refused before a
 * byte of the body is spent on them), inflating when gzipped, strict UTF-8, then JSON.
 */
import { DwellError } from '../errors.js';
import { inflate, type RawBody } from './body.js';
import type { Exchange } from './reply.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function checkMediaType(ex: Exchange): void {
  const encoding = ex.header('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'gzip' && encoding !== 'identity') {
    throw new DwellError('unsupported_media_type', `Content-Encoding is gzip or absent, got ${JSON.stringify(encoding)}`);
  }
  const type = ex.header('content-type').split(';')[0].trim().toLowerCase();
  if (type !== '' && type !== 'application/json') {
    throw new DwellError('unsupported_media_type', `Content-Type is application/json, got ${JSON.stringify(type)}`);
  }
}

/** The body says it is gzip (after checkMediaType accepted its encoding). */
export const isGzip = (ex: Exchange): boolean => ex.header('content-encoding').trim().toLowerCase() === 'gzip';

/** The body as sent, inflated when it says it is gzip (after checkMediaType accepted it). */
export function plainBytes(ex: Exchange, raw: RawBody): Promise<Buffer> | Buffer {
  return isGzip(ex) ? inflate(raw.bytes) : raw.bytes;
}

export function parseJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new DwellError('invalid_json', 'the body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DwellError('invalid_json', `the body is not valid JSON (${(err as Error).message})`);
  }
}

/** Media type, inflate and parse: what a small JSON endpoint needs in one call. */
export async function readJson(ex: Exchange, raw: RawBody): Promise<unknown> {
  checkMediaType(ex);
  return parseJson(await plainBytes(ex, raw));
}
