/**
 * The last successful backup of a data directory, for alerting: `dwell backup` (another process,
 * possibly with no node running) writes `<dir>/last-backup.json`, and the node serving that
 * directory reads it on each /metrics scrape. A file rather than `POST /admin/backup`: a backup
 * is taken on the directory, by whoever can read it, whether or not a node serves it, and the
 * metric reports it either way; it needs no admin token in cron, and the copy's I/O stays out
 * of the serving process.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Metrics } from '../http/metrics.js';
import { log } from '../log.js';

export const LAST_BACKUP_FILE = 'last-backup.json';

export interface LastBackup { at: number; bytes: number }

/** A directory the backup may only read (a backup user without write access) loses the metric, not the backup. */
export function recordBackup(dataDir: string, last: LastBackup): void {
  const file = path.join(dataDir, LAST_BACKUP_FILE);
  try {
    writeFileSync(file + '.tmp', JSON.stringify(last) + '\n');
    renameSync(file + '.tmp', file);
  } catch (err) {
    log.warn('backup written, but not recorded for /metrics', { file, error: String((err as Error).message) });
  }
}

export function readLastBackup(dataDir: string): LastBackup | undefined {
  try {
    const v = JSON.parse(readFileSync(path.join(dataDir, LAST_BACKUP_FILE), 'utf8')) as LastBackup;
    return Number.isFinite(v.at) && Number.isFinite(v.bytes) ? v : undefined;
  } catch {
    return undefined; // none yet
  }
}

/** 0 until the directory has been backed up: an alert on `time() - …timestamp_seconds` then fires at once. */
export function backupMetrics(metrics: Metrics, dataDir: string): void {
  metrics.gauge('dwell_backup_last_success_timestamp_seconds', 'when the last successful `dwell backup` of this data directory finished (Unix seconds; 0: never)',
    () => (readLastBackup(dataDir)?.at ?? 0) / 1000);
  metrics.gauge('dwell_backup_last_size_bytes', 'the size of the last successful backup of this data directory', () => readLastBackup(dataDir)?.bytes ?? 0);
}
