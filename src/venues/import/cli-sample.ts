/**
 * Builds the bundled sample store (data/monaco) from data/monaco-latest.osm.pbf; run by the
 * package's `prepare` script after tsc:  node dist/src/venues/import/cli-sample.js [--force]
 * Skips the ~2 s rebuild when the store is already newer than the extract.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dataPath } from '../paths.js';
import { readCurrent, readMeta } from '../store-layout.js';
import { runImport } from './build.js';

export async function buildSample(force = false): Promise<string> {
  const src = dataPath('monaco-latest.osm.pbf');
  const out = dataPath('monaco');
  if (!force && (await upToDate(out, statSync(src).mtimeMs))) return out;
  const r = await runImport({ format: 'osm', file: src, out, quiet: true });
  process.stderr.write(`dwell: built sample venue store ${out} (${r.venues} venues, ${r.bad} bad rows)\n`);
  return out;
}

async function upToDate(out: string, srcMtime: number): Promise<boolean> {
  try {
    const v = await readCurrent(out);
    if (!v || !existsSync(join(out, v))) return false;
    const meta = await readMeta(join(out, v));
    return Date.parse(meta.built_at) > srcMtime;
  } catch {
    return false;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildSample(process.argv.includes('--force')).catch((err) => {
    process.stderr.write(`dwell: building the sample venue store failed: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
