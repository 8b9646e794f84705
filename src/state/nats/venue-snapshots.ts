/**
 * Venue store snapshots in a JetStream object store (bucket `dwell-venues`), so every node of a
 * cluster serves the same store without a shared disk. A snapshot is a store version's files,
 * each an object `<version>/<file>`, and one small object `CURRENT` naming the newest version
 * and its files, written last: a node that reads CURRENT finds every file it names complete.
 * The version before the newest is kept too, so a node that read CURRENT just before a publish
 * can still finish its download; older ones are deleted.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { connectNats, type NatsState } from './connect.js';
import { creating } from './create.js';
import { clock } from '../../time/clock.js';

export const VENUE_BUCKET = 'dwell-venues';
const CURRENT = 'CURRENT';

export interface SnapshotManifest { version: string; files: string[]; published_at: string }

export class VenueSnapshots {
  private constructor(private readonly s: NatsState, private readonly os: ObjectStore) {}

  static async open(servers: readonly string[], name = 'dwell-venues'): Promise<VenueSnapshots> {
    const s = await connectNats(servers, { name, timeoutMs: 10_000 });
    try {
      return new VenueSnapshots(s, await creating(() => new Objm(s.js).create(VENUE_BUCKET, { replicas: s.replicas })));
    } catch (err) {
      await s.close();
      throw err;
    }
  }

  /** Uploads the files of a built store version (its directory `dir`), then points CURRENT at it. */
  async publish(version: string, dir: string): Promise<SnapshotManifest> {
    const files = (await readdir(dir, { withFileTypes: true })).filter((f) => f.isFile() && !f.name.endsWith('-lock')).map((f) => f.name).sort();
    for (const f of files) {
      const body = Readable.toWeb(createReadStream(join(dir, f))) as unknown as ReadableStream<Uint8Array>;
      await this.os.put({ name: `${version}/${f}` }, body);
    }
    const previous = await this.current();
    const manifest: SnapshotManifest = { version, files, published_at: new Date(clock.now()).toISOString() };
    await this.os.putBlob({ name: CURRENT }, new TextEncoder().encode(JSON.stringify(manifest)));
    const keep = new Set([version, previous?.version]);
    for (const o of await this.os.list()) {
      if (o.name !== CURRENT && !o.deleted && !keep.has(o.name.split('/')[0])) await this.os.delete(o.name);
    }
    return manifest;
  }

  /** The newest published snapshot, or undefined when none was published. */
  async current(): Promise<SnapshotManifest | undefined> {
    const blob = await this.os.getBlob(CURRENT);
    return blob ? JSON.parse(new TextDecoder().decode(blob)) as SnapshotManifest : undefined;
  }

  /** Writes a snapshot's files into `dir` (which must exist), streaming; fails if one is missing or damaged. */
  async download(m: SnapshotManifest, dir: string): Promise<void> {
    for (const f of m.files) {
      if (!/^[\w.-]+$/.test(f)) throw new Error(`refusing a snapshot file name ${JSON.stringify(f)}`);
      const r = await this.os.get(`${m.version}/${f}`);
      if (!r) throw new Error(`venue snapshot ${m.version} has no ${f} (deleted by a newer publish?)`);
      await pipeline(Readable.fromWeb(r.data as never), createWriteStream(join(dir, f)) as Writable);
      const err = await r.error; // the object store checks the digest once the stream is read
      if (err) throw err;
    }
  }

  close(): Promise<void> {
    return this.s.close();
  }
}
