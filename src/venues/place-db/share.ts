/**
 * The place database of this process: one SharedArrayBuffer, read from dist/places.bin by the
 * first thread that asks (the HTTP thread, when it starts the detection pool) and handed to the
 * workers in their workerData, so N workers cost one copy. A thread given none (a benchmark run
 * in-process, a tool) reads its own. When the file is missing or of another format (a checkout
 * built without `npm run build`), it is built by a child process instead, a second or so, and said once.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../paths.js';
import { unpack } from './layout.js';

let shared: SharedArrayBuffer | undefined;

export const placeDbPath = (): string => join(packageRoot(), 'dist', 'places.bin');

/** The process's buffer, loaded on first use. */
export function placeDbBuffer(): SharedArrayBuffer {
  return (shared ??= load());
}

/** Takes the buffer another thread loaded (a worker's workerData); undefined leaves loading to first use. */
export function usePlaceDb(buffer: SharedArrayBuffer | undefined): void {
  if (buffer) shared = buffer;
}

function load(): SharedArrayBuffer {
  const file = placeDbPath();
  try {
    const fd = openSync(file, 'r');
    try {
      const sab = new SharedArrayBuffer(fstatSync(fd).size);
      const view = new Uint8Array(sab);
      for (let at = 0; at < view.length;) {
        const n = readSync(fd, view, at, view.length - at, at);
        if (n === 0) throw new Error('file shorter than its size');
        at += n;
      }
      unpack(sab);
      return sab;
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    process.stderr.write(`dwell: place database ${file} not usable (${(err as Error).message}); building it\n`);
    return buildInMemory();
  }
}

/** In a child process (the build loads the source packages, some 100 MB, none of which should stay in this one). */
function buildInMemory(): SharedArrayBuffer {
  const dir = mkdtempSync(join(tmpdir(), 'dwell-places-'));
  try {
    const out = join(dir, 'places.bin');
    execFileSync(process.execPath, [fileURLToPath(new URL('./build.js', import.meta.url)), '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
    const bytes = readFileSync(out);
    const sab = new SharedArrayBuffer(bytes.length);
    new Uint8Array(sab).set(bytes);
    unpack(sab);
    return sab;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
