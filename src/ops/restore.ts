/**
 * `dwell restore <backup> --data-dir <dir>`: checks the backup whole before writing anything
 * (its manifest, a data format this release reads, every file's size and SHA-256), then copies
 * it into a data directory no node is using (its lock is held throughout) that is empty unless
 * `force`. The files are copied into `<dir>/.restoring/` and moved into place, and the format
 * stamp is written last: `dwell serve` on the result migrates it if the backup is of an older
 * format, as it would the directory it was taken from.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { lockDataDir, LOCK_FILE } from '../data-dir-lock.js';
import { log } from '../log.js';
import { sumFile } from './checksums.js';
import { DataFormatNewer, FORMAT_FILE, FORMAT_VERSION, writeStamp } from './format-version.js';
import { readManifest, type Manifest } from './manifest.js';
import { STORES } from './stores.js';
import { LAST_BACKUP_FILE } from './last-backup.js';

const STAGING = '.restoring';

export class RestoreRefused extends Error {
  readonly exitCode = 1;
}

export async function restoreDataDir(backup: string, dataDir: string, opts: { force?: boolean } = {}): Promise<Manifest> {
  const manifest = readManifest(backup);
  if (manifest.format_version > FORMAT_VERSION) {
    throw new DataFormatNewer(`the backup ${backup}`, { format_version: manifest.format_version, written_by: manifest.dwell_version });
  }
  for (const f of manifest.files) {
    const file = path.join(backup, f.path);
    if (!existsSync(file)) throw new RestoreRefused(`the backup ${backup} is incomplete: ${f.path} is missing`);
    const sum = await sumFile(file, f.path);
    if (sum.bytes !== f.bytes || sum.sha256 !== f.sha256) {
      throw new RestoreRefused(`the backup ${backup} is damaged: ${f.path} has ${sum.bytes} bytes, SHA-256 ${sum.sha256}; its manifest says ${f.bytes} bytes, ${f.sha256}`);
    }
  }

  const lock = lockDataDir(dataDir); // DataDirInUse when a node serves it
  try {
    const present = readdirSync(dataDir).filter((e) => e !== LOCK_FILE);
    if (present.length && !opts.force) {
      throw new RestoreRefused(`the data directory ${dataDir} is not empty (${present.slice(0, 5).join(', ')}${present.length > 5 ? ', …' : ''}): restore into an empty one, or pass --force to replace its stores`);
    }
    const staging = path.join(dataDir, STAGING);
    rmSync(staging, { recursive: true, force: true });
    for (const f of manifest.files) {
      mkdirSync(path.dirname(path.join(staging, f.path)), { recursive: true });
      copyFileSync(path.join(backup, f.path), path.join(staging, f.path));
    }
    // --force: what the backup replaces goes, stores it does not hold included (else a store
    // the node had then but not at the backup would come back beside it).
    const replaced = [...STORES.flatMap((s) => (s.path.endsWith('.mdb') ? [s.path, `${s.path}-lock`] : [s.path])), FORMAT_FILE, LAST_BACKUP_FILE];
    for (const p of replaced) rmSync(path.join(dataDir, p), { recursive: true, force: true });
    for (const e of readdirSync(staging)) renameSync(path.join(staging, e), path.join(dataDir, e));
    rmSync(staging, { recursive: true, force: true });
    writeStamp(dataDir, manifest.format_version, manifest.dwell_version);
    log.notice('backup restored', { from: backup, data_dir: dataDir, format_version: manifest.format_version, bytes: manifest.bytes, ...manifest.counts });
    return manifest;
  } finally {
    lock.release();
  }
}
