/**
 * Recent detections in an LMDB environment of their own (DWELL_DATA_DIR/recent). Two keys per
 * detection: a small summary ['s', app, at, seq] that lists, trims and erases read, and the
 * bytes ['b', app, at, seq] read only when one is opened. The detect route hands a detection
 * over and returns; detections gather for FLUSH_MS and are written, counted and trimmed in one
 * lmdb-js asynchronous write transaction, off the request's turn. Of an app's gathered detections
 * only the newest `count` are written: the trim would remove the rest in the same transaction.
 * At 1,500 detections a second for one app, every detection's request and answer (9 KB) were
 * written and deleted again within moments, some 25 µs of CPU a detection on the HTTP thread and
 * LMDB's writer; now 100 a second are. A read (list, one, a user's) writes what is gathered first,
 * so the explorer and an export show a detection as soon as it was answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { log } from '../log.js';
import type { NewDetection, RecentDetail, RecentDetections, RecentLimits, RecentSummary } from './types.js';
import { parsed } from './bytes.js';
import { clock } from '../time/clock.js';

type Key = [string, string, number, number];
interface Summary { u: string | null; k: 'structured' | 'unstructured'; r: string | null; t: RecentSummary['tally'] }
interface Bytes { g: boolean; b: Uint8Array; a: Uint8Array }

const END = '\uffff';
/** How long detections gather before they are written together. */
const FLUSH_MS = 1_000;
const idOf = (k: Key) => `${k[2].toString(36)}-${k[3].toString(36)}`;
function keyOf(app: string, id: string): Key | null {
  const m = /^([0-9a-z]{1,12})-([0-9a-z]{1,8})$/.exec(id);
  return m ? ['s', app, parseInt(m[1], 36), parseInt(m[2], 36)] : null;
}
const bytesKey = (k: Key): Key => ['b', k[1], k[2], k[3]];
const summaryOut = (k: Key, s: Summary): RecentSummary => ({ id: idOf(k), at: new Date(k[2]).toISOString(), user: s.u, kind: s.k, request_id: s.r, tally: s.t });

export function openRecent(dataDir: string, limits: RecentLimits): RecentDetections {
  const dir = path.join(dataDir, 'recent');
  fs.mkdirSync(dir, { recursive: true });
  // noSync: a crash of the machine may lose the last few; these are a convenience, not a record.
  const db: RootDatabase = open({ path: dir, noSync: true, compression: false });
  let seq = 0;
  let writes: Promise<unknown> = Promise.resolve();
  /** Detections kept per app, counted once and then followed. */
  const counts = new Map<string, number>();
  const range = (app: string) => ({ start: ['s', app] as never, end: ['s', app, END] as never });
  const countOf = (app: string) => {
    let n = counts.get(app);
    if (n === undefined) counts.set(app, (n = db.getKeysCount(range(app))));
    return n;
  };
  const remove = (k: Key) => { db.removeSync(k); db.removeSync(bytesKey(k)); };

  /** Drops the oldest beyond the count and any past the age: inside a write transaction, whose reads see its writes. */
  function trim(app: string, now: number): void {
    let n = countOf(app);
    for (const k of db.getKeys({ ...range(app), limit: Math.max(0, n - limits.count) + 64 }) as Iterable<Key>) {
      if (n <= limits.count && (!limits.maxAgeMs || k[2] >= now - limits.maxAgeMs)) break;
      remove(k);
      n--;
    }
    counts.set(app, n);
  }

  const fresh = (k: Key) => !limits.maxAgeMs || k[2] >= clock.now() - limits.maxAgeMs;

  async function removeWhere(app: string, keep: (s: Summary) => boolean): Promise<number> {
    let gone = 0;
    flush();
    await writes; // a detection recorded just before is erased too
    await db.transaction(() => {
      for (const { key, value } of db.getRange(range(app)) as Iterable<{ key: Key; value: Summary }>) {
        if (keep(value)) continue;
        db.removeSync(key); db.removeSync(bytesKey(key));
        gone++;
      }
    });
    counts.delete(app);
    return gone;
  }

  /** Detections gathered per app since the last write, in arrival order. */
  const queue = new Map<string, NewDetection[]>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  /** The newest `count` by time of receipt (the trim's order; arrivals of one ms keep theirs). */
  const newest = (ds: NewDetection[]) => (ds.length <= limits.count ? ds : ds.sort((a, b) => a.at - b.at).slice(-limits.count));
  function flush(): void {
    if (timer) { clearTimeout(timer); timer = null; }
    // After close() the store is gone: a flush timer left from before it threw "Database is closed" and ended the process with 1.
    if (closed || queue.size === 0) return;
    const batch = [...queue].flatMap(([app, ds]) => newest(ds).map((d) => [app, d] as const));
    queue.clear();
    const entries = batch.map(([app, d]) => {
      const k: Key = ['s', app, d.at, seq = (seq + 1) % 0xffffffff];
      return { k, bytes: { g: d.gzip, b: d.body, a: d.answer() } satisfies Bytes, summary: { u: d.user, k: d.kind, r: d.request_id, t: d.tally } satisfies Summary };
    });
    writes = db.transaction(() => {
      const apps = new Set<string>();
      for (const { k, bytes, summary } of entries) {
        const n = countOf(k[1]);
        db.putSync(bytesKey(k), bytes);
        db.putSync(k, summary);
        counts.set(k[1], n + 1);
        apps.add(k[1]);
      }
      for (const app of apps) trim(app, clock.now());
    }).catch((err) => {
      // Losing some costs the explorer rows; the detections were answered.
      counts.clear();
      log.warn('recent detections not kept', { count: entries.length, error: String((err as Error)?.message ?? err) });
    });
  }

  /** A read of `app`'s detections, after those gathered for it are written. */
  function afterWrites<T>(app: string, read: () => T): T | Promise<T> {
    if (!queue.has(app)) return read();
    flush();
    return writes.then(read);
  }

  /** Every app with detections kept, skipping from one app's keys to the next. */
  function* apps(): Generator<string> {
    let from: unknown[] = ['s'];
    for (;;) {
      const k = [...db.getKeys({ start: from as never, end: ['s', END] as never, limit: 1 })][0] as Key | undefined;
      if (!k) return;
      yield k[1];
      from = ['s', k[1], END];
    }
  }

  function detail(app: string, id: string): RecentDetail | undefined {
    const k = keyOf(app, id);
    const s = k && fresh(k) ? (db.get(k) as Summary | undefined) : undefined;
    const b = s ? (db.get(bytesKey(k!)) as Bytes | undefined) : undefined;
    if (!s || !b) return undefined;
    return { ...summaryOut(k!, s), request: parsed(b.b, b.g), answer: parsed(b.a, false) };
  }

  return {
    sweep() {
      const now = clock.now();
      writes = db.transaction(() => { for (const app of [...apps()]) trim(app, now); });
    },
    wants: (app) => limits.count > 0 && !limits.optOut.has(app),
    record(app, d) {
      const ds = queue.get(app);
      if (!ds) queue.set(app, [d]);
      // Held until the write: beyond twice the count, the older ones (which the trim would drop) go now.
      else if (ds.push(d) >= 2 * limits.count) queue.set(app, newest(ds));
      // Detections that arrive together are kept together: one write transaction, one trim per app.
      if (!closed && !timer) timer = setTimeout(flush, FLUSH_MS);
    },
    list: (app, limit) => afterWrites(app, () => {
      const out: RecentSummary[] = [];
      for (const { key, value } of db.getRange({ reverse: true, start: ['s', app, END] as never, end: ['s', app] as never }) as Iterable<{ key: Key; value: Summary }>) {
        if (out.length >= limit || !fresh(key)) break;
        out.push(summaryOut(key, value));
      }
      return out;
    }),
    get: (app, id) => afterWrites(app, () => detail(app, id)),
    ofUser: (app, user) => afterWrites(app, () => {
      const out: RecentDetail[] = [];
      for (const { key, value } of db.getRange(range(app)) as Iterable<{ key: Key; value: Summary }>) {
        const d = value.u === user && fresh(key) ? detail(app, idOf(key)) : undefined;
        if (d) out.push(d);
      }
      return out;
    }),
    eraseUser: (app, user) => removeWhere(app, (s) => s.u !== user),
    deleteApp: (app) => removeWhere(app, () => false),
    async flushed() {
      flush();
      await writes;
      await db.flushed;
    },
    async close() {
      flush();
      closed = true;
      await writes;
      await db.close();
    },
  };
}
