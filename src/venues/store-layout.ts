/**
 * The store on disk:
 *   <root>/CURRENT          the live version's directory name (replaced by write-tmp + rename)
 *   <root>/v-<buildId>/     venues.mdb (LMDB records), index.bin (Flatbush buffer), meta.json
 *   <root>/.tmp-<buildId>/  an import in progress; renamed to v-<buildId> only when complete
 * A reader that follows CURRENT therefore only ever sees complete versions.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { clock } from '../time/clock.js';

// 2: records encoded with shared msgpack structures. Bump on any change to what is on disk, so
// stores of another format are refused and the bundled sample is rebuilt by `prepare`.
export const FORMAT_VERSION = 2;
export const RECORDS = 'venues.mdb';
export const INDEX = 'index.bin';
export const META = 'meta.json';

export interface StoreMeta {
  format_version: number;
  count: number;
  /** [minLon, minLat, maxLon, maxLat] */
  bbox: [number, number, number, number];
  source: { format: string; file: string };
  built_at: string;
  index_bytes: number;
  /** Venues whose source counted visits (popularity ≥ 0); absent in stores built before it was kept. */
  counted?: number;
}

export function newBuildId(): string {
  return new Date(clock.now()).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z') + '-' + randomBytes(3).toString('hex');
}

/** The live version directory name, or undefined when the root has none yet. */
export async function readCurrent(root: string): Promise<string | undefined> {
  try {
    const v = (await readFile(join(root, 'CURRENT'), 'utf8')).trim();
    return v === '' ? undefined : v;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Atomically points CURRENT at a version: readers see the old name or the new one, never half. */
export async function writeCurrent(root: string, version: string): Promise<void> {
  const tmp = join(root, `CURRENT.tmp-${process.pid}`);
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(version + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, join(root, 'CURRENT'));
  await syncDir(root);
}

export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try { await fh.sync(); } catch { /* some filesystems refuse fsync on directories */ } finally { await fh.close(); }
}

/**
 * Removes versions other than `keep` (the live one and the one before it, so a server that has
 * not yet polled the swap keeps working) and leftovers of imports whose process is gone.
 * Already-open files stay readable after unlink, so a slow server is never cut off mid-query.
 */
export async function pruneVersions(root: string, keep: string[]): Promise<void> {
  for (const name of await readdir(root)) {
    if (name.startsWith('v-') && !keep.includes(name)) await rm(join(root, name), { recursive: true, force: true });
    const tmp = /^\.tmp-.*-(\d+)$/.exec(name);
    if (tmp && !pidAlive(Number(tmp[1]))) await rm(join(root, name), { recursive: true, force: true });
  }
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** Resolves a root (with CURRENT) or a version directory itself to the version to open. */
export async function resolveVersion(root: string): Promise<{ id: string; dir: string }> {
  const current = await readCurrent(root);
  if (current) return { id: current, dir: join(root, current) };
  if (existsSync(join(root, META))) return { id: root, dir: root };
  throw new Error(`no venue store at ${root}: expected a CURRENT file (made by 'dwell import --out ${root}'), found none`);
}

export async function readMeta(dir: string): Promise<StoreMeta> {
  const meta = JSON.parse(await readFile(join(dir, META), 'utf8')) as StoreMeta;
  if (meta.format_version !== FORMAT_VERSION) {
    throw new Error(`venue store ${dir} has format_version ${meta.format_version}, expected ${FORMAT_VERSION}: re-run dwell import`);
  }
  return meta;
}
