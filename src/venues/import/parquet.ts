/**
 * Streams the rows of a Parquet file, or of every *.parquet file under a directory (FSQ OS
 * Places and Overture are published as many part files), one row group at a time with
 * `hyparquet`: memory holds one row group of the columns asked for, never the file. Codecs
 * beyond snappy (zstd, gzip, brotli, lz4) come from `hyparquet-compressors`.
 * Byte-array columns without a UTF-8 annotation (GeoParquet's WKB geometry) stay bytes.
 */
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parquetMetadataAsync, parquetReadObjects, parquetSchema, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { Progress } from './report.js';

export type ParquetRow = Record<string, unknown>;

/** The input's Parquet files: the file itself, or a directory's *.parquet files (recursively, by name). */
export async function parquetFiles(path: string): Promise<string[]> {
  const st = await stat(path);
  if (st.isFile()) return [path];
  const found: string[] = [];
  for (const e of await readdir(path, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.parquet')) found.push(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
  }
  if (found.length === 0) throw new Error(`${path} is a directory without any .parquet file`);
  return found.sort();
}

/** An AsyncBuffer on an open file: one positioned read per slice hyparquet asks for. */
function fileBuffer(fh: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end = size): Promise<ArrayBuffer> {
      const buf = new Uint8Array(end - start);
      let done = 0;
      while (done < buf.length) {
        const { bytesRead } = await fh.read(buf, done, buf.length - done, start + done);
        if (bytesRead === 0) throw new Error(`file ended at byte ${start + done}, expected ${end}`);
        done += bytesRead;
      }
      return buf.buffer;
    },
  };
}

interface Opened { path: string; fh: FileHandle; buffer: AsyncBuffer; metadata: FileMetaData }

async function openParquet(path: string): Promise<Opened> {
  const fh = await open(path, 'r');
  try {
    const buffer = fileBuffer(fh, (await fh.stat()).size);
    const metadata = await parquetMetadataAsync(buffer, { geoparquet: false });
    return { path, fh, buffer, metadata };
  } catch (err) {
    await fh.close();
    throw new Error(`${path}: not a readable Parquet file (${(err as Error).message})`);
  }
}

export interface ParquetScan {
  /** What the format is called in messages, e.g. "FSQ OS Places". */
  label: string;
  /** Top-level columns read when present. */
  columns: string[];
  /** Top-level columns a file must have. */
  required: string[];
}

/**
 * Calls `onRow` for every row, with a reference for bad-row reports: the 1-based row number,
 * prefixed by the file's name when the input is a directory of several files.
 */
export async function scanParquet(path: string, scan: ParquetScan, progress: Progress, onRow: (row: ParquetRow, ref: number | string) => void): Promise<void> {
  const files = await parquetFiles(path);
  // Footers first (a few KB each): the total row count makes the progress fraction and ETA.
  let total = 0;
  for (const f of files) {
    const o = await openParquet(f);
    total += Number(o.metadata.num_rows);
    await o.fh.close();
  }
  let done = 0;
  progress.track(() => (total > 0 ? done / total : 1));
  for (const f of files) {
    const o = await openParquet(f);
    try {
      const present = new Set(parquetSchema(o.metadata).children.map((c) => c.element.name));
      const missing = scan.required.filter((c) => !present.has(c));
      if (missing.length) {
        throw new Error(`${f}: no column ${missing.join(', ')}: expected the ${scan.label} schema (${scan.required.join(', ')}, …), found ${[...present].join(', ')}`);
      }
      const columns = scan.columns.filter((c) => present.has(c));
      const prefix = files.length > 1 ? `${basename(f)}:` : '';
      let rowStart = 0;
      for (const group of o.metadata.row_groups) {
        const rowEnd = rowStart + Number(group.num_rows);
        const rows = await parquetReadObjects({
          file: o.buffer, metadata: o.metadata, columns, rowStart, rowEnd, compressors, utf8: false, geoparquet: false,
        });
        for (let i = 0; i < rows.length; i++) {
          progress.row();
          done++;
          onRow(rows[i], prefix ? `${prefix}${rowStart + i + 1}` : rowStart + i + 1);
        }
        rowStart = rowEnd;
      }
    } finally {
      await o.fh.close();
    }
  }
}

const utf8 = new TextDecoder();

/** A trimmed non-empty string from a string or UTF-8 bytes column value; undefined otherwise. */
export function text(v: unknown): string | undefined {
  const s = typeof v === 'string' ? v : v instanceof Uint8Array ? utf8.decode(v) : undefined;
  const t = s?.trim();
  return t ? t : undefined;
}

/** A list column's values as trimmed non-empty strings (a missing list is empty). */
export function texts(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const x of v) { const t = text(x); if (t !== undefined) out.push(t); }
  return out;
}

/** A finite number from a number or bigint column value. */
export function num(v: unknown): number | undefined {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** State or region: a bare code ("NY", "US-NY") is dropped so the gazetteer fills the full name. */
export function regionName(v: string | undefined): string | undefined {
  return v && /^([A-Z]{2}-)?[A-Z0-9]{1,3}$/.test(v) ? undefined : v;
}
