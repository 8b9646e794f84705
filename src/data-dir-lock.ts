/**
 * One server per data directory. The outbox's leases live in the memory of the server that
 * claimed the triggers (src/delivery/leases.ts): a second server on the same directory would not
 * see them and would send the same triggers at the same time, and both would sweep geofences and
 * user state. So `dwell serve` takes `<dir>/dwell.lock` first, a file holding its pid and the
 * start time of that pid, created exclusively.
 *
 * A lock whose process is gone (a kill -9, a crash, a reboot) is stale and taken over. The start
 * time tells a live owner from a process that merely reuses its pid after a restart (in a
 * container the server is often pid 1 each time); where /proc is missing, the pid alone decides.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'dwell.lock';

/** `dwell serve` exits with this code when a live server already owns the directory. */
export const EXIT_DATA_DIR_IN_USE = 3;

export class DataDirInUse extends Error {
  readonly exitCode = EXIT_DATA_DIR_IN_USE;
  constructor(readonly dir: string, readonly pid: number) {
    super(`the data directory ${dir} is in use by another dwell server (pid ${pid}); one server per DWELL_DATA_DIR (lock file ${path.join(dir, LOCK_FILE)})`);
    this.name = 'DataDirInUse';
  }
}

export interface DataDirLock {
  /** Removes the lock file if it is still ours. Safe to call more than once. */
  release(): void;
}

/** Takes the directory (creating it if needed), or throws DataDirInUse. */
export function lockDataDir(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const mine = `${process.pid} ${startTime(process.pid) ?? ''}\n`;
  // Two rounds: the second follows removing a stale lock; a server that loses the race for the
  // new one to another starting at the same moment ends in DataDirInUse. Not covered: two that
  // both read the same stale lock and remove it in turn (the second removing the first's new
  // lock) both start. That takes two starts within the same few microseconds on a dead owner.
  for (let round = 0; round < 2; round++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, mine);
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
          } catch { /* gone already */ }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = readOwner(file);
    if (owner && owner.pid !== process.pid && alive(owner.pid, owner.start)) throw new DataDirInUse(dir, owner.pid);
    try {
      unlinkSync(file); // stale: its process is gone
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const owner = readOwner(file);
  throw new DataDirInUse(dir, owner?.pid ?? 0);
}

function readOwner(file: string): { pid: number; start: string } | undefined {
  try {
    const [pid, start = ''] = readFileSync(file, 'utf8').trim().split(' ');
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 ? { pid: n, start } : undefined; // unreadable: stale
  } catch {
    return undefined;
  }
}

function alive(pid: number, start: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: no such process
  }
  const now = startTime(pid);
  return !start || now === undefined || now === start;
}

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), Linux only. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
