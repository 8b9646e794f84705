/**
 * Writes one store version into a private temporary directory: records into LMDB in batches
 * (memory stays bounded; only 16 bytes of coordinates per venue are kept for the index), then
 * the index and meta.json. Nothing is visible to readers until publish() (see build.ts).
 */
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openRecords, type Records } from '../records.js';
import { buildIndex } from '../spatial-index.js';
import { FORMAT_VERSION, INDEX, META, RECORDS, type StoreMeta } from '../store-layout.js';
import type { Venue } from '../types.js';
import type { Progress } from './report.js';
import { clock } from '../../time/clock.js';

const BATCH = 4096;

export class StoreWriter {
  private readonly db: Records;
  private pending: Array<{ venue: Venue; line: number | string }> = [];
  private lat = new Float64Array(1 << 16);
  private lon = new Float64Array(1 << 16);
  count = 0;
  /** Venues with a visit count (popularity ≥ 0): detection learns how their share of visits compares. */
  counted = 0;

  private constructor(readonly dir: string, private readonly progress: Progress) {
    this.db = openRecords(join(dir, RECORDS), false);
  }

  static async create(dir: string, progress: Progress): Promise<StoreWriter> {
    await mkdir(dir, { recursive: true });
    return new StoreWriter(dir, progress);
  }

  add(venue: Venue, line: number | string): void {
    this.pending.push({ venue, line });
    if (this.pending.length >= BATCH) this.flush();
  }

  /** Writes the pending batch in one transaction; a repeated id is a bad row, first one wins. */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.db.env.transactionSync(() => {
      for (const { venue, line } of batch) {
        const prev = this.db.ids.get(venue.id);
        if (prev !== undefined) { this.progress.badRow(line, `duplicate id ${JSON.stringify(venue.id)} (first kept as record ${prev})`); continue; }
        const i = this.count++;
        if (venue.popularity >= 0) this.counted++;
        this.grow(i);
        this.lat[i] = venue.lat;
        this.lon[i] = venue.lon;
        this.db.venues.putSync(i, venue);
        this.db.ids.putSync(venue.id, i);
      }
    });
    this.progress.venues = this.count;
  }

  private grow(i: number): void {
    if (i < this.lat.length) return;
    const size = this.lat.length * 2;
    const lat = new Float64Array(size); lat.set(this.lat); this.lat = lat;
    const lon = new Float64Array(size); lon.set(this.lon); this.lon = lon;
  }

  /** Flushes, builds the index and writes meta.json; everything fsynced before it returns. */
  async finish(source: StoreMeta['source']): Promise<StoreMeta> {
    this.flush();
    await this.db.env.close();
    if (this.count === 0) throw new Error(`no venues in ${source.file}: expected at least one valid ${source.format} venue`);
    this.progress.phase = 'index';
    this.progress.maybeLog(true);
    const index = buildIndex(this.lat, this.lon, this.count);
    await writeSynced(join(this.dir, INDEX), new Uint8Array(index));
    const meta: StoreMeta = {
      format_version: FORMAT_VERSION, count: this.count, bbox: bbox(this.lat, this.lon, this.count), source,
      built_at: new Date(clock.now()).toISOString(), index_bytes: index.byteLength, counted: this.counted,
    };
    await writeSynced(join(this.dir, META), JSON.stringify(meta, null, 2) + '\n');
    return meta;
  }

  async abort(): Promise<void> {
    await this.db.env.close().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function writeSynced(path: string, data: Uint8Array | string): Promise<void> {
  await writeFile(path, data);
  const fh = await open(path, 'r+');
  try { await fh.sync(); } finally { await fh.close(); }
}

function bbox(lat: Float64Array, lon: Float64Array, n: number): StoreMeta['bbox'] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < n; i++) {
    x0 = Math.min(x0, lon[i]); x1 = Math.max(x1, lon[i]); y0 = Math.min(y0, lat[i]); y1 = Math.max(y1, lat[i]);
  }
  return [x0, y0, x1, y1];
}
