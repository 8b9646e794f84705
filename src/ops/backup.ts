/**
 * `dwell backup --out <dir>`: a consistent, compacted copy of every store of an embedded node's
 * data directory, taken while a node serves it. Each LMDB environment is copied by LMDB itself
 * (lmdb-js `backup`, mdb_env_copy2 with compaction): the copy reads one read transaction, so it
 * is a committed state of that environment, and the writer in the serving process never waits
 * for it. The environments are copied one after another in stores.ts's order, which is what
 * makes the whole copy consistent across them.
 *
 * The copy is made in `<out>.partial-<pid>` and renamed to `<out>` once its manifest is written,
 * so `<out>` is a whole backup or nothing.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { log } from '../log.js';
import { sumFile, type FileSum } from './checksums.js';
import { countStores } from './counts.js';
import { DataFormatNewer, DWELL_VERSION, FORMAT_VERSION, readStamp } from './format-version.js';
import { MANIFEST_FILE, type Manifest } from './manifest.js';
import { dataFile, STORES, unknownStores } from './stores.js';
import { recordBackup } from './last-backup.js';
import { wallNow, monotonicMs } from '../time/wall.js';

export async function backupDataDir(dataDir: string, out: string): Promise<Manifest> {
  if (!existsSync(dataDir)) throw new Error(`the data directory ${dataDir} does not exist`);
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty: a backup goes into a new or empty directory`);
  const stamp = readStamp(dataDir);
  // A newer release may keep stores this one does not know of: a copy of part would look whole.
  if (stamp && stamp.format_version > FORMAT_VERSION) throw new DataFormatNewer(`the data directory ${dataDir}`, stamp);
  const unknown = unknownStores(readdirSync(dataDir, { withFileTypes: true }).map((e) => ({
    name: e.name, isDirectory: e.isDirectory(), holdsDataMdb: e.isDirectory() && existsSync(path.join(dataDir, e.name, 'data.mdb')),
  })));
  if (unknown.length) throw new Error(`the data directory ${dataDir} holds stores this release does not know (${unknown.join(', ')}): nothing copied`);

  // The copy yields the CPU to the node it runs beside: a backup may take longer, requests may not.
  try { setPriority(19); } catch { /* not permitted: at the usual priority */ }
  const started = monotonicMs();
  const partial = `${out.replace(/[\\/]+$/, '')}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    const order: string[] = [];
    for (const store of STORES) {
      const live = path.join(dataDir, store.path);
      if (!existsSync(live)) continue; // never opened by this node: nothing of that kind
      await copyEnv(live, path.join(partial, store.path), store.path.endsWith('.mdb'));
      order.push(store.name);
      log.info('backup: store copied', { store: store.name });
    }
    const counts = countStores(partial);
    removeLockFiles(partial);
    const files: FileSum[] = [];
    for (const store of STORES) {
      const f = dataFile(store);
      if (existsSync(path.join(partial, f))) files.push(await sumFile(path.join(partial, f), f));
    }
    const manifest: Manifest = {
      dwell_version: DWELL_VERSION,
      format_version: stamp?.format_version ?? FORMAT_VERSION,
      created_at: new Date(started).toISOString(),
      duration_ms: Math.round(monotonicMs() - started),
      order,
      counts,
      files,
      bytes: files.reduce((n, f) => n + f.bytes, 0),
    };
    writeFileSync(path.join(partial, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    if (existsSync(out)) rmSync(out, { recursive: true }); // empty, checked above
    mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
    renameSync(partial, out);
    recordBackup(dataDir, { at: wallNow(), bytes: manifest.bytes });
    log.notice('backup written', { out, bytes: manifest.bytes, duration_ms: manifest.duration_ms, ...counts });
    return manifest;
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

/** LMDB's own copy of one environment, compacted, in a read transaction of the serving file. */
async function copyEnv(live: string, to: string, noSubdir: boolean): Promise<void> {
  if (!noSubdir) mkdirSync(to, { recursive: true }); // a directory environment's copy is `<to>/data.mdb`
  const env = open({ path: live, readOnly: true, compression: false } as never) as RootDatabase;
  try {
    await env.backup(to, true);
  } finally {
    await env.close();
  }
}

/** The lock files counting the copy left (LMDB makes one per environment it opens). */
function removeLockFiles(dir: string): void {
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && (e.name.endsWith('.mdb-lock') || e.name === 'lock.mdb')) rmSync(path.join(e.parentPath ?? e.path, e.name));
  }
}
