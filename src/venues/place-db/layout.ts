/**
 * The place database's one buffer: the places' KDBush index first (KDBush.from reads its own
 * header at offset 0), then typed-array sections, then a trailer saying where the section table
 * is. Built once (build.ts, at `npm run build` into dist/places.bin), it is read into one
 * SharedArrayBuffer per process and every thread views it in place (share.ts): nothing in it is
 * parsed into a worker's heap.
 */
export const MAGIC = 0x44505744; // "DWPD"
export const FORMAT_VERSION = 2;
const TRAILER_BYTES = 16;

/** Section order in the table; the names say the element type. */
export const SECTIONS = [
  'placeLon', 'placeLat', 'placePop', 'placeCc', 'nameOff', 'nameBytes', 'placeAdmin', 'adminOff', 'adminBytes', 'placeAdmin1',
  'admin1Off', 'admin1Bytes',
  'nodeBox', 'nodeInfo', 'nodeChildren', 'itemBox', 'itemRings', 'itemAnswer', 'ringPoints', 'points',
] as const;
export type Section = (typeof SECTIONS)[number];

const TYPES = {
  placeLon: Float32Array, placeLat: Float32Array, placePop: Uint32Array, placeCc: Uint16Array,
  nameOff: Uint32Array, nameBytes: Uint8Array, placeAdmin: Uint16Array, adminOff: Uint32Array, adminBytes: Uint8Array, placeAdmin1: Int16Array,
  admin1Off: Uint32Array, admin1Bytes: Uint8Array,
  nodeBox: Float64Array, nodeInfo: Int32Array, nodeChildren: Int32Array, itemBox: Float64Array, itemRings: Int32Array,
  itemAnswer: Uint16Array, ringPoints: Int32Array, points: Float64Array,
} as const;
export type Sections = { [K in Section]: InstanceType<(typeof TYPES)[K]> };

const align8 = (n: number) => (n + 7) & ~7;

/** One buffer from the KDBush data and the sections (all present, in SECTIONS order). */
export function pack(kdbush: ArrayBufferLike, sections: Sections): Uint8Array {
  let size = align8(kdbush.byteLength);
  const at: number[] = [];
  for (const name of SECTIONS) { at.push(size); size = align8(size + sections[name].byteLength); }
  const tableAt = size;
  size += SECTIONS.length * 8 + TRAILER_BYTES;
  const out = new Uint8Array(size);
  out.set(new Uint8Array(kdbush), 0);
  SECTIONS.forEach((name, i) => out.set(new Uint8Array(sections[name].buffer, sections[name].byteOffset, sections[name].byteLength), at[i]));
  const view = new DataView(out.buffer);
  SECTIONS.forEach((name, i) => { view.setUint32(tableAt + i * 8, at[i], true); view.setUint32(tableAt + i * 8 + 4, sections[name].byteLength, true); });
  const t = size - TRAILER_BYTES;
  view.setUint32(t, MAGIC, true); view.setUint32(t + 4, FORMAT_VERSION, true);
  view.setUint32(t + 8, tableAt, true); view.setUint32(t + 12, SECTIONS.length, true);
  return out;
}

/** Views over `buf` (no copy); throws when it is not a place database of this format. */
export function unpack(buf: ArrayBufferLike): Sections {
  const view = new DataView(buf);
  const t = buf.byteLength - TRAILER_BYTES;
  if (t < 0 || view.getUint32(t, true) !== MAGIC) throw new Error('not a Dwell place database');
  if (view.getUint32(t + 4, true) !== FORMAT_VERSION || view.getUint32(t + 12, true) !== SECTIONS.length) throw new Error('place database of another format version');
  const tableAt = view.getUint32(t + 8, true);
  const out = {} as Record<Section, unknown>;
  SECTIONS.forEach((name, i) => {
    const off = view.getUint32(tableAt + i * 8, true), len = view.getUint32(tableAt + i * 8 + 4, true);
    const T = TYPES[name];
    out[name] = new T(buf as ArrayBuffer, off, len / T.BYTES_PER_ELEMENT);
  });
  return out as Sections;
}

/** Two ASCII letters as one number, so a country compares as an integer. */
export const ccCode = (cc: string): number => (cc.length === 2 ? (cc.charCodeAt(0) << 8) | cc.charCodeAt(1) : 0);
export const ccString = (code: number): string => String.fromCharCode(code >> 8, code & 0xff);
