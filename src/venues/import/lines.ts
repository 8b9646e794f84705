/**
 * Streams a text file (gzip detected by its magic bytes, not its name) line by line, with
 * 1-based line numbers. Lines are split on raw bytes and decoded one by one: UTF-8 when valid,
 * else Latin-1, because the original TSMC2014 file is Latin-1 ("Caf\xe9") while its CSV copies
 * are UTF-8.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Progress } from './report.js';

export interface Line { no: number; text: string; tooLong?: boolean }

const MAX_LINE = 1 << 20;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

function decode(b: Buffer): string {
  try { return utf8.decode(b); } catch { return latin1.decode(b); }
}

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** With `progress`, tells it how far through the file (in compressed bytes, for gzip) it is. */
export async function* readLines(path: string, progress?: Progress): AsyncGenerator<Line> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  if (progress) {
    const size = (await stat(path)).size;
    progress.track(() => (size > 0 ? file.bytesRead / size : 1));
  }
  const src = (await isGzip(path)) ? file.pipe(createGunzip()) : file;
  file.on('error', (err) => src.destroy(err)); // pipe() does not forward read errors
  let carry: Buffer[] = [];
  let carryLen = 0;
  let no = 0;
  for await (const chunk of src as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      let piece = chunk.subarray(start, nl);
      start = nl + 1;
      no++;
      const total = carryLen + piece.length;
      if (carryLen > 0) { piece = total > MAX_LINE ? piece : Buffer.concat([...carry, piece]); carry = []; carryLen = 0; }
      if (total > MAX_LINE) { yield { no, text: '', tooLong: true }; continue; }
      yield { no, text: decode(stripCr(piece)) };
    }
    if (start < chunk.length) {
      // Only the first MAX_LINE bytes of an overlong line are kept: memory stays bounded.
      if (carryLen <= MAX_LINE) carry.push(chunk.subarray(start));
      carryLen += chunk.length - start;
    }
  }
  if (carryLen > 0) {
    no++;
    yield carryLen > MAX_LINE ? { no, text: '', tooLong: true } : { no, text: decode(stripCr(Buffer.concat(carry))) };
  }
}

function stripCr(b: Buffer): Buffer {
  return b.length > 0 && b[b.length - 1] === 13 ? b.subarray(0, b.length - 1) : b;
}
