/**
 * Cluster mode: a node serves the venue store published to the cluster (`dwell import …
 * --publish`), not a local one. It keeps a local copy under `<data dir>/venue-snapshots`, laid
 * out like any store root (CURRENT + version directories), and polls the cluster for a newer
 * snapshot: a new one is downloaded beside the live one, renamed into place complete, and
 * CURRENT switched; the store watcher (store.ts `watchStore`) then swaps to it without a
 * restart. Until the first snapshot is here the node has no store, so /readyz says not ready.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { log } from '../log.js';
import type { SnapshotManifest } from '../state/nats/venue-snapshots.js';
import { pruneVersions, readCurrent, syncDir, writeCurrent } from './store-layout.js';

export interface SnapshotSource {
  current(): Promise<SnapshotManifest | undefined>;
  download(m: SnapshotManifest, dir: string): Promise<void>;
}

export const snapshotRoot = (dataDir: string): string => join(dataDir, 'venue-snapshots');

/**
 * One look-and-fetch may take this long. A read of the object store can stall without failing (a
 * stream whose server went away mid-transfer); past this the attempt is abandoned and the next
 * poll starts afresh, into a directory of its own, instead of the node waiting on it for ever.
 */
const ATTEMPT_MS = 60_000;
let attempts = 0;

/** Fetches the newest snapshot into `root` whenever it changes; answers a stop function. */
export function followSnapshots(source: SnapshotSource, root: string, intervalMs = 2_000): () => void {
  let busy = false;
  let stopped = false;
  let waiting = false;
  const tick = async (): Promise<void> => {
    if (busy || stopped) return;
    busy = true;
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<'stalled'>((resolve) => { timer = setTimeout(() => resolve('stalled'), ATTEMPT_MS); timer.unref(); });
    try {
      if (await Promise.race([attempt(), stalled]) === 'stalled') log.warn('venue snapshot fetch stalled; trying again', { after_ms: ATTEMPT_MS });
    } catch (err) {
      log.warn('venue snapshot fetch failed; keeping the current store', { error: (err as Error).message });
    } finally {
      clearTimeout(timer);
      busy = false;
    }
  };
  /** The attempt under way; an abandoned one that wakes up later must not switch CURRENT back. */
  let generation = 0;
  const attempt = async (): Promise<void> => {
    const mine = ++generation;
    const m = await source.current();
    if (!m) {
      if (!waiting) log.warn('no venue store published to the cluster yet: not ready until one is (dwell import … --publish)');
      waiting = true;
      return;
    }
    const live = await readCurrent(root).catch(() => undefined);
    if (m.version === live) return;
    await fetchInto(source, m, root);
    if (mine !== generation || stopped) return;
    await writeCurrent(root, m.version);
    await pruneVersions(root, live ? [m.version, live] : [m.version]);
    log.info('venue snapshot fetched', { version: m.version, published_at: m.published_at });
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return () => { stopped = true; clearInterval(timer); };
}

async function fetchInto(source: SnapshotSource, m: SnapshotManifest, root: string): Promise<void> {
  if (!/^[\w.-]+$/.test(m.version)) throw new Error(`refusing a snapshot version name ${JSON.stringify(m.version)}`);
  const tmp = join(root, `.tmp-${m.version}-${process.pid}-${++attempts}`);
  await mkdir(tmp, { recursive: true });
  try {
    await source.download(m, tmp);
    await syncDir(tmp);
    await rm(join(root, m.version), { recursive: true, force: true });
    await rename(tmp, join(root, m.version));
    await syncDir(root);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}
