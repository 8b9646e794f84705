/**
 * Cluster mode: a thread's copy of every geofence, fed by the cluster's watch, with a FenceIndex
 * per app kept up to date change by change, so a fence created on any node raises events on
 * every node within the watch's delay (milliseconds), and detection reads no fence over the
 * network. Memory: every fence once per detection thread (see worker.ts for the index's size).
 */
import type { StoredGeofence } from '../schemas/geofence.js';
import type { FencesState, Watching } from '../state/types.js';
import { shapeOf } from './geometry.js';
import { FenceIndex } from './fence-index.js';
import { expiresMs } from './store.js';

export class FenceMirror {
  private readonly records = new Map<string, Map<string, StoredGeofence>>();
  private readonly indexes = new Map<string, FenceIndex>();
  private readonly watching: Watching;

  constructor(fences: FencesState) {
    this.watching = fences.watch((key, rec) => {
      const dot = key.indexOf('.');
      const app = key.slice(0, dot), id = key.slice(dot + 1);
      let recs = this.records.get(app);
      const index = this.indexes.get(app);
      if (rec) {
        if (!recs) this.records.set(app, (recs = new Map()));
        recs.set(id, rec);
        index?.upsert(id, shapeOf(rec.location), expiresMs(rec));
      } else if (recs?.delete(id)) {
        index?.remove(id);
      }
    });
  }

  get ready(): Promise<void> {
    return this.watching.ready;
  }

  /** True once this copy holds every fence written before the call (state/nats/catch-up.ts). */
  caughtUp(maxMs: number): Promise<boolean> {
    return this.watching.caughtUp(maxMs);
  }

  /** The app's index, built on first use; undefined when the app has no fences. */
  index(app: string): FenceIndex | undefined {
    const recs = this.records.get(app);
    if (!recs || recs.size === 0) return undefined;
    let index = this.indexes.get(app);
    if (!index) {
      index = new FenceIndex();
      for (const rec of recs.values()) index.add(rec.id, shapeOf(rec.location), expiresMs(rec));
      index.rebuild();
      this.indexes.set(app, index);
    }
    return index;
  }

  info(app: string, id: string): StoredGeofence | undefined {
    return this.records.get(app)?.get(id);
  }

  stop(): void {
    this.watching.stop();
  }
}
