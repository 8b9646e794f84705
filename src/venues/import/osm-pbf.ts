/**
 * A small, memory-bounded OSM PBF reader on the `pbf` package and node:zlib: blobs are read one
 * at a time from the file (never the whole file), inflated, and their primitive groups handed
 * to a visitor. Only what the visitor asks for is decoded; other groups are skipped unparsed.
 * Spec: https://wiki.openstreetmap.org/wiki/PBF_Format
 */
import { PbfReader } from 'pbf';
import { open } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';

export type Tags = Record<string, string>;
export interface Member { type: 0 | 1 | 2; ref: number; role: string } // node, way, relation

export interface OsmVisitor {
  /** tags is null for untagged nodes (most of them: way vertices). */
  node?(id: number, lat: number, lon: number, tags: Tags | null): void;
  way?(id: number, refs: number[], tags: Tags): void;
  relation?(id: number, members: Member[], tags: Tags): void;
  /** After each blob: bytes of the file read so far, of size (for progress). */
  read?(pos: number, size: number): void;
}

const SUPPORTED = new Set(['OsmSchema-V0.6', 'DenseNodes']);
const MAX_BLOB = 64 << 20;

interface Block { strings: string[]; gran: number; latOff: number; lonOff: number; groups: Array<[number, number]> }

export async function scanPbf(path: string, visit: OsmVisitor): Promise<void> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const len = Buffer.alloc(4);
    for (let pos = 0; pos < size;) {
      await readExactly(fh, len, pos, path);
      const headerLen = len.readUInt32BE(0);
      if (headerLen > 64 * 1024) throw new Error(`${path}: blob header at byte ${pos} claims ${headerLen} bytes, expected ≤ 64 KiB: not an OSM PBF?`);
      const header = await readExactly(fh, Buffer.alloc(headerLen), pos + 4, path);
      const { type, dataSize } = new PbfReader(header).readFields((tag, r, p) => {
        if (tag === 1) r.type = p.readString(); else if (tag === 3) r.dataSize = p.readVarint();
      }, { type: '', dataSize: 0 });
      if (dataSize > MAX_BLOB) throw new Error(`${path}: blob at byte ${pos} is ${dataSize} bytes, expected ≤ ${MAX_BLOB}`);
      const blob = await readExactly(fh, Buffer.alloc(dataSize), pos + 4 + headerLen, path);
      pos += 4 + headerLen + dataSize;
      const data = unpackBlob(blob, path);
      if (type === 'OSMHeader') checkHeader(data, path);
      else if (type === 'OSMData') visitBlock(data, visit);
      visit.read?.(pos, size);
    }
  } finally {
    await fh.close();
  }
}

async function readExactly(fh: import('node:fs/promises').FileHandle, buf: Buffer, pos: number, path: string): Promise<Buffer> {
  const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
  if (bytesRead !== buf.length) throw new Error(`${path}: truncated at byte ${pos + bytesRead}, expected ${buf.length} more bytes`);
  return buf;
}

function unpackBlob(blob: Buffer, path: string): Uint8Array {
  const r = new PbfReader(blob).readFields((tag, o, p) => {
    if (tag === 1) o.raw = p.readBytes(); else if (tag === 3) o.zlib = p.readBytes(); else if (tag > 3) o.other = tag;
  }, {} as { raw?: Uint8Array; zlib?: Uint8Array; other?: number });
  if (r.raw) return r.raw;
  if (r.zlib) return inflateSync(r.zlib);
  throw new Error(`${path}: blob compressed with field ${r.other} (lzma/lz4/zstd), expected raw or zlib`);
}

function checkHeader(data: Uint8Array, path: string): void {
  const required: string[] = [];
  new PbfReader(data).readFields((tag, _r, p) => { if (tag === 4) required.push(p.readString()); }, null);
  const bad = required.filter((f) => !SUPPORTED.has(f));
  if (bad.length) throw new Error(`${path}: requires unsupported features ${bad.join(', ')}; expected only ${[...SUPPORTED].join(', ')}`);
}

function visitBlock(data: Uint8Array, visit: OsmVisitor): void {
  const pbf = new PbfReader(data);
  const b = pbf.readFields((tag, o, p) => {
    if (tag === 1) p.readMessage((t, s, q) => { if (t === 1) s.push(q.readString()); }, o.strings);
    else if (tag === 2) { const end = p.readVarint() + p.pos; o.groups.push([p.pos, end]); p.pos = end; }
    else if (tag === 17) o.gran = p.readVarint();
    else if (tag === 19) o.latOff = p.readVarint(true);
    else if (tag === 20) o.lonOff = p.readVarint(true);
  }, { strings: [], gran: 100, latOff: 0, lonOff: 0, groups: [] } as Block);
  for (const [start, end] of b.groups) {
    pbf.pos = start;
    pbf.readFields((tag, _r, p) => {
      if (tag === 2 && visit.node) p.readMessage((t, d, q) => readDenseField(t, d, q), dense()).emit(b, visit);
      else if (tag === 1 && visit.node) readNode(p, b, visit);
      else if (tag === 3 && visit.way) readWay(p, b, visit);
      else if (tag === 4 && visit.relation) readRelation(p, b, visit);
    }, null, end);
  }
}

const tagsOf = (keys: number[], vals: number[], s: string[]): Tags => {
  const t: Tags = {};
  for (let i = 0; i < keys.length; i++) t[s[keys[i]]] = s[vals[i]];
  return t;
};

function dense() {
  return {
    ids: [] as number[], lats: [] as number[], lons: [] as number[], kv: [] as number[],
    emit(b: Block, visit: OsmVisitor): void {
      let id = 0, lat = 0, lon = 0, k = 0;
      for (let i = 0; i < this.ids.length; i++) {
        id += this.ids[i]; lat += this.lats[i]; lon += this.lons[i];
        let tags: Tags | null = null;
        while (k < this.kv.length && this.kv[k] !== 0) {
          (tags ??= {})[b.strings[this.kv[k]]] = b.strings[this.kv[k + 1]];
          k += 2;
        }
        k++; // the 0 that ends this node's pairs
        visit.node!(id, 1e-9 * (b.latOff + b.gran * lat), 1e-9 * (b.lonOff + b.gran * lon), tags);
      }
    },
  };
}

function readDenseField(tag: number, d: ReturnType<typeof dense>, p: PbfReader): void {
  if (tag === 1) p.readPackedSVarint(d.ids);
  else if (tag === 8) p.readPackedSVarint(d.lats);
  else if (tag === 9) p.readPackedSVarint(d.lons);
  else if (tag === 10) p.readPackedVarint(d.kv);
}

function readNode(p: PbfReader, b: Block, visit: OsmVisitor): void {
  const n = p.readMessage((t, o, q) => {
    if (t === 1) o.id = q.readSVarint(); else if (t === 2) q.readPackedVarint(o.keys); else if (t === 3) q.readPackedVarint(o.vals);
    else if (t === 8) o.lat = q.readSVarint(); else if (t === 9) o.lon = q.readSVarint();
  }, { id: 0, keys: [] as number[], vals: [] as number[], lat: 0, lon: 0 });
  const tags = n.keys.length ? tagsOf(n.keys, n.vals, b.strings) : null;
  visit.node!(n.id, 1e-9 * (b.latOff + b.gran * n.lat), 1e-9 * (b.lonOff + b.gran * n.lon), tags);
}

function readWay(p: PbfReader, b: Block, visit: OsmVisitor): void {
  const w = p.readMessage((t, o, q) => {
    if (t === 1) o.id = q.readVarint(); else if (t === 2) q.readPackedVarint(o.keys); else if (t === 3) q.readPackedVarint(o.vals);
    else if (t === 8) q.readPackedSVarint(o.refs);
  }, { id: 0, keys: [] as number[], vals: [] as number[], refs: [] as number[] });
  for (let i = 1; i < w.refs.length; i++) w.refs[i] += w.refs[i - 1];
  visit.way!(w.id, w.refs, tagsOf(w.keys, w.vals, b.strings));
}

function readRelation(p: PbfReader, b: Block, visit: OsmVisitor): void {
  const r = p.readMessage((t, o, q) => {
    if (t === 1) o.id = q.readVarint(); else if (t === 2) q.readPackedVarint(o.keys); else if (t === 3) q.readPackedVarint(o.vals);
    else if (t === 8) q.readPackedVarint(o.roles); else if (t === 9) q.readPackedSVarint(o.ids); else if (t === 10) q.readPackedVarint(o.types);
  }, { id: 0, keys: [] as number[], vals: [] as number[], roles: [] as number[], ids: [] as number[], types: [] as number[] });
  const members: Member[] = [];
  for (let i = 0, ref = 0; i < r.ids.length; i++) {
    ref += r.ids[i];
    members.push({ type: r.types[i] as Member['type'], ref, role: b.strings[r.roles[i]] ?? '' });
  }
  visit.relation!(r.id, members, tagsOf(r.keys, r.vals, b.strings));
}
