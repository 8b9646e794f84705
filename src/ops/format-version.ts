/**
 * The data format version of a data directory: `<dir>/format.json`, `{"format_version": N,
 * "written_by": "<dwell version>"}`, stamped when a release first opens the directory and after
 * each migration. A directory holding stores but no stamp was written before formats were
 * versioned: that is format 0, whose layout is format 1's (migrations.ts).
 *
 * The decision is pure (`decide`); reading and writing the stamp is the shell around it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { STORES } from './stores.js';

/** The format this release writes. Raise it with a migration in migrations.ts. */
export const FORMAT_VERSION = 2;
export const FORMAT_FILE = 'format.json';
/** Exit code of a command refused because a newer release wrote the directory (or backup). */
export const EXIT_FORMAT_NEWER = 4;

export const DWELL_VERSION: string = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')).version;

export interface FormatStamp { format_version: number; written_by: string }

export class DataFormatNewer extends Error {
  readonly exitCode = EXIT_FORMAT_NEWER;
  constructor(where: string, found: FormatStamp, known = FORMAT_VERSION) {
    super(`${where} holds data format version ${found.format_version} (written by Dwell ${found.written_by}); `
      + `this Dwell ${DWELL_VERSION} reads data format version ${known} and older: run Dwell ${found.written_by} or later, `
      + 'or restore a backup taken by this release');
    this.name = 'DataFormatNewer';
  }
}

export type Decision =
  | { action: 'stamp' } // a fresh directory
  | { action: 'current' }
  | { action: 'migrate'; from: number }
  | { action: 'refuse'; found: number };

/** `found`: the stamp's version, 0 for stores without a stamp, undefined for no stores at all. */
export function decide(found: number | undefined, known = FORMAT_VERSION): Decision {
  if (found === undefined) return { action: 'stamp' };
  if (found > known) return { action: 'refuse', found };
  return found < known ? { action: 'migrate', from: found } : { action: 'current' };
}

/** The stamp, a synthetic format-0 one for unstamped stores, or undefined for an empty directory. */
export function readStamp(dir: string): FormatStamp | undefined {
  const file = path.join(dir, FORMAT_FILE);
  if (existsSync(file)) {
    const stamp = JSON.parse(readFileSync(file, 'utf8')) as FormatStamp;
    if (!Number.isInteger(stamp.format_version) || stamp.format_version < 0) throw new Error(`${file}: format_version is not a version number`);
    return stamp;
  }
  return STORES.some((s) => existsSync(path.join(dir, s.path))) ? { format_version: 0, written_by: 'a release before 0.1.0' } : undefined;
}

/** Written beside and renamed over, so a crash leaves the old stamp or the new one. */
export function writeStamp(dir: string, version = FORMAT_VERSION, writtenBy = DWELL_VERSION): void {
  const file = path.join(dir, FORMAT_FILE);
  const stamp: FormatStamp = { format_version: version, written_by: writtenBy };
  writeFileSync(file + '.tmp', JSON.stringify(stamp) + '\n');
  renameSync(file + '.tmp', file);
}
