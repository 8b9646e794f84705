/**
 * `dwell import`: reads a source into a new store version beside the live one and then swaps
 * CURRENT to it. The version is built in <out>/.tmp-<id>-<pid>, renamed to <out>/v-<id> only
 * once complete and fsynced, and CURRENT is replaced by rename: a failed or killed import leaves
 * the served store exactly as it was (a killed one's leftovers are removed by the next import).
 */
import { mkdir, rename, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { log } from '../../log.js';
import { newBuildId, pruneVersions, readCurrent, syncDir, writeCurrent } from '../store-layout.js';
import type { ImportFormat, ImportReport, Venue } from '../types.js';
import { readFsq } from './fsq.js';
import { readJsonl } from './jsonl.js';
import { readOsm } from './osm.js';
import { readOverture } from './overture.js';
import { Progress, type ProgressOutput } from './report.js';
import { readTsmc } from './tsmc.js';
import { StoreWriter } from './writer.js';

export interface ImportOptions {
  format: ImportFormat | string; file: string; out: string; quiet?: boolean;
  /** Where progress goes; stderr (a terminal line when it is a TTY, else a log line every 10 s) unless given. */
  output?: ProgressOutput;
}

type Reader = (file: string, progress: Progress, emit: (v: Venue, line: number | string) => void) => Promise<void>;
const READERS: Record<ImportFormat, Reader> = { osm: readOsm, jsonl: readJsonl, tsmc: readTsmc, 'fsq-os-places': readFsq, overture: readOverture };
/** Published as many part files: a directory of them is one input. */
const DIRECTORY_OK = new Set<string>(['fsq-os-places', 'overture']);

export async function runImport(opts: ImportOptions): Promise<ImportReport> {
  const format = opts.format as ImportFormat;
  const read = READERS[format];
  if (!read) throw new Error(`unknown import format ${JSON.stringify(opts.format)}: expected one of ${Object.keys(READERS).join(', ')}`);
  const file = resolve(opts.file);
  const out = resolve(opts.out);
  const st = await stat(file).catch(() => undefined);
  if (!st?.isFile() && !(st?.isDirectory() && DIRECTORY_OK.has(format))) {
    throw new Error(`import source ${file} is not a readable file${DIRECTORY_OK.has(format) ? ' or directory of .parquet files' : ''}`);
  }
  await mkdir(out, { recursive: true });

  const buildId = newBuildId();
  const version = `v-${buildId}`;
  const progress = new Progress(format, file, opts.quiet, opts.output);
  const writer = await StoreWriter.create(join(out, `.tmp-${buildId}-${process.pid}`), progress);
  try {
    await read(file, progress, (v, line) => writer.add(v, line));
    await writer.finish({ format, file });
    await rename(writer.dir, join(out, version));
    await syncDir(out);
  } catch (err) {
    progress.abandon();
    await writer.abort();
    throw err;
  }
  progress.end();
  const previous = await readCurrent(out);
  await writeCurrent(out, version);
  await pruneVersions(out, previous ? [version, previous] : [version]);

  const report: ImportReport = {
    format, file, out, version, rows: progress.rows, venues: writer.count, bad: progress.bad,
    // Duplicates are found when a batch is written, after later lines were read: report in file order.
    bad_rows: [...progress.badRows].sort((a, b) => (typeof a.line === 'number' && typeof b.line === 'number' ? a.line - b.line : 0)),
    unmapped_categories: Object.fromEntries([...progress.unmapped].sort((a, b) => b[1] - a[1])),
    ...(DIRECTORY_OK.has(format) ? { closed: progress.closed } : {}),
    seconds: Math.round(progress.seconds() * 100) / 100,
  };
  if (!opts.quiet && !progress.tty) {
    log.info('import done', { format, file, out, version, rows: report.rows, venues: report.venues, bad: report.bad, seconds: report.seconds });
  }
  return report;
}
