/**
 * A gzip member whose deflate data is stored, not compressed (RFC 1951 §3.2.4, BTYPE 00): a
 * few bytes of framing and a CRC, no zlib stream to set up. Gzip members concatenate (RFC 1952
 * §2.2: a file is a series of members; zlib's gunzip, Node's included, inflates them all), so a
 * benchmark can put a request's few changing bytes (new user ids) in a stored member in front of
 * a body compressed once: the client spends microseconds a request instead of a millisecond of
 * gzip, which on a 2-core machine would otherwise come out of the server's share.
 */
import { crc32 } from 'node:zlib';

const MAX_BLOCK = 0xffff;

export function storedGzip(data: Buffer): Buffer {
  const blocks = Math.max(1, Math.ceil(data.length / MAX_BLOCK));
  const out = Buffer.alloc(10 + blocks * 5 + data.length + 8);
  // ID1 ID2 CM=8 FLG=0 MTIME=0 XFL=0 OS=255 (unknown)
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff], 0);
  let at = 10;
  for (let b = 0; b < blocks; b++) {
    const chunk = data.subarray(b * MAX_BLOCK, Math.min(data.length, (b + 1) * MAX_BLOCK));
    out[at] = b === blocks - 1 ? 1 : 0; // BFINAL on the last block, BTYPE 00
    out.writeUInt16LE(chunk.length, at + 1);
    out.writeUInt16LE(~chunk.length & 0xffff, at + 3);
    out.set(chunk, at + 5);
    at += 5 + chunk.length;
  }
  out.writeUInt32LE(crc32(data) >>> 0, at);
  out.writeUInt32LE(data.length >>> 0, at + 4);
  return out;
}
