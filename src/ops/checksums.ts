/** SHA-256 and size of a file, read as a stream (a users environment can be gigabytes). */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface FileSum { path: string; bytes: number; sha256: string }

export async function sumFile(file: string, name: string): Promise<FileSum> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { path: name, bytes, sha256: hash.digest('hex') };
}
