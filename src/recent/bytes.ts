/** A kept body or answer back as JSON: the bytes as stored, gzip when the request was. */
import { gunzipSync } from 'node:zlib';

export function parsed(u: Uint8Array, gzip: boolean): unknown {
  const b = gzip ? gunzipSync(u) : u;
  return JSON.parse(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'));
}
