/**
 * The migrations from one data format to the next, and how one is run: once, in place, logged,
 * with a copy of every store it rewrites kept aside (`<dir>/.migration/`) until the new stamp is
 * written. A migration cut short (a crash, an error) leaves that copy; the next open puts it back
 * before anything else, so a directory is always wholly at one version.
 */
import { cpSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { log } from '../log.js';
import { decide, DataFormatNewer, FORMAT_VERSION, readStamp, writeStamp } from './format-version.js';
import { movePresenceToRecords } from './migrate-presence.js';

export interface Migration {
  from: number;
  /** What it changes, for the log. */
  what: string;
  /** The paths under the data directory it rewrites: copied aside first. */
  rewrites: string[];
  run(dir: string): Promise<void> | void;
}

/** Each takes format `from` to `from + 1`. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    from: 0,
    // Directories written before format versions: their layout is format 1's (the tenant-scoped
    // user keys' own clean-up, users/drop-unscoped.ts, still runs on every open).
    what: 'stamp a directory written before data format versions',
    rewrites: [],
    run: () => undefined,
  },
  {
    from: 1,
    what: 'geofence presence moved from the geofence store into the user records',
    rewrites: ['geofences.mdb', 'users'],
    run: async (dir) => { log.notice('geofence presence moved into user records', { users: await movePresenceToRecords(dir) }); },
  },
]);

export const ASIDE = '.migration';

/**
 * Makes `dir` this release's format before any store opens it: stamps a fresh directory, refuses
 * a newer one (DataFormatNewer), migrates an older one step by step. Call it holding the data
 * directory's lock.
 */
export async function openDataDir(dir: string, migrations: readonly Migration[] = MIGRATIONS, known = FORMAT_VERSION): Promise<void> {
  putBack(dir);
  const stamp = readStamp(dir);
  const d = decide(stamp?.format_version, known);
  if (d.action === 'stamp') return writeStamp(dir, known);
  if (d.action === 'refuse') throw new DataFormatNewer(`the data directory ${dir}`, stamp!, known);
  if (d.action === 'current') return;
  for (let v = d.from; v < known; v++) {
    const step = migrations.find((m) => m.from === v);
    if (!step) throw new Error(`no migration from data format version ${v} to ${v + 1}`);
    log.notice('data format migrating', { dir, from: v, to: v + 1, what: step.what });
    const aside = path.join(dir, ASIDE);
    rmSync(aside, { recursive: true, force: true });
    for (const p of step.rewrites) if (existsSync(path.join(dir, p))) cpSync(path.join(dir, p), path.join(aside, p), { recursive: true });
    await step.run(dir);
    writeStamp(dir, v + 1);
    rmSync(aside, { recursive: true, force: true }); // the new stamp is down: the copy is no longer needed
    log.notice('data format migrated', { dir, from: v, to: v + 1 });
  }
}

/** A migration that did not finish: its copies go back over what it may have half rewritten. */
function putBack(dir: string): void {
  const aside = path.join(dir, ASIDE);
  if (!existsSync(aside)) return;
  const kept = readdirSync(aside);
  for (const p of kept) {
    rmSync(path.join(dir, p), { recursive: true, force: true });
    renameSync(path.join(aside, p), path.join(dir, p));
  }
  rmSync(aside, { recursive: true, force: true });
  log.warn('data format migration had not finished: put back what it replaced', { dir, restored: kept });
}
