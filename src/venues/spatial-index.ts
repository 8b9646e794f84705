/**
 * The spatial index: a Flatbush R-tree over points (x = lon, y = Mercator y, both in degree
 * units, Float32), packed here in Hilbert order (see hilbert-order.ts) and written straight
 * into a SharedArrayBuffer in Flatbush's own format, so `Flatbush.from` reads it in place in
 * every worker. Item ids are venue record indexes.
 */
import Flatbush from 'flatbush';
import { hilbertOrder, type Bounds } from './hilbert-order.js';
import { mercY, metresPerIndexUnit } from './geo.js';

const FLATBUSH_VERSION = 3;
const FLOAT32_TYPE = 7; // index of Float32Array in Flatbush's ARRAY_TYPES
export const NODE_SIZE = 16;

/** Byte layout of a Flatbush buffer for n items (mirrors Flatbush's constructor). */
function layout(n: number, nodeSize: number): { numNodes: number; levelBounds: number[]; wideIds: boolean } {
  let m = n;
  let numNodes = n;
  const levelBounds = [n * 4];
  do {
    m = Math.ceil(m / nodeSize);
    numNodes += m;
    levelBounds.push(numNodes * 4);
  } while (m !== 1);
  return { numNodes, levelBounds, wideIds: numNodes >= 16384 };
}

export function indexByteSize(n: number, nodeSize = NODE_SIZE): number {
  const { numNodes, wideIds } = layout(n, nodeSize);
  return 8 + numNodes * 16 + numNodes * (wideIds ? 4 : 2);
}

/** Builds the index over n points given as lat/lon arrays (record order). */
export function buildIndex(lat: ArrayLike<number>, lon: ArrayLike<number>, n: number, nodeSize = NODE_SIZE): SharedArrayBuffer {
  if (n <= 0) throw new Error(`cannot index ${n} venues: expected at least one`);
  let xs: Float32Array | undefined = new Float32Array(n);
  let ys: Float32Array | undefined = new Float32Array(n);
  const b: Bounds = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (let i = 0; i < n; i++) {
    const x = (xs[i] = lon[i]);
    const y = (ys[i] = mercY(lat[i]));
    if (x < b.minX) b.minX = x;
    if (x > b.maxX) b.maxX = x;
    if (y < b.minY) b.minY = y;
    if (y > b.maxY) b.maxY = y;
  }
  const order = hilbertOrder(xs, ys, n, b);
  const { numNodes, levelBounds, wideIds } = layout(n, nodeSize);
  const data = new SharedArrayBuffer(indexByteSize(n, nodeSize));
  new Uint8Array(data, 0, 2).set([0xfb, (FLATBUSH_VERSION << 4) + FLOAT32_TYPE]);
  new Uint16Array(data, 2, 1)[0] = nodeSize;
  new Uint32Array(data, 4, 1)[0] = n;
  const boxes = new Float32Array(data, 8, numNodes * 4);
  const ids = wideIds ? new Uint32Array(data, 8 + numNodes * 16, numNodes) : new Uint16Array(data, 8 + numNodes * 16, numNodes);
  for (let i = 0, p = 0; i < n; i++) {
    const id = order[i];
    ids[i] = id;
    boxes[p++] = xs[id]; boxes[p++] = ys[id]; boxes[p++] = xs[id]; boxes[p++] = ys[id];
  }
  xs = ys = undefined;
  packLevels(boxes, ids, levelBounds, nodeSize);
  return data;
}

/** Parent boxes, bottom-up, exactly as Flatbush.finish() lays them out. */
function packLevels(boxes: Float32Array, ids: Uint16Array | Uint32Array, levelBounds: number[], nodeSize: number): void {
  let pos = levelBounds[0];
  for (let level = 0, read = 0; level < levelBounds.length - 1; level++) {
    const end = levelBounds[level];
    while (read < end) {
      const node = read;
      let x0 = boxes[read++], y0 = boxes[read++], x1 = boxes[read++], y1 = boxes[read++];
      for (let j = 1; j < nodeSize && read < end; j++) {
        x0 = Math.min(x0, boxes[read++]); y0 = Math.min(y0, boxes[read++]);
        x1 = Math.max(x1, boxes[read++]); y1 = Math.max(y1, boxes[read++]);
      }
      ids[pos >> 2] = node;
      boxes[pos++] = x0; boxes[pos++] = y0; boxes[pos++] = x1; boxes[pos++] = y1;
    }
  }
}

/** Opens an index buffer in place (no copy). */
export function openIndex(data: SharedArrayBuffer | ArrayBuffer): Flatbush {
  return Flatbush.from(data);
}

/**
 * Record indexes within radiusM of a point, nearest first, at most max. The bound is widened
 * by the Float32 rounding of the index (~2 m at ±180°) so that callers can filter on exact
 * metre distance from the records without losing venues at the edge.
 */
export function nearIds(index: Flatbush, lat: number, lon: number, radiusM: number, max: number): number[] {
  const scale = metresPerIndexUnit(lat);
  return index.neighbors(lon, mercY(lat), max, (radiusM * 1.001 + 2) / scale);
}

/**
 * Record indexes in the index's box around a circle of radiusM (widened as nearIds' bound), in no
 * order: a box search walks the tree without the priority queue `neighbors` keeps, for callers
 * that measure each venue themselves.
 */
export function boxIds(index: Flatbush, lat: number, lon: number, radiusM: number): number[] {
  const d = (radiusM * 1.001 + 2) / metresPerIndexUnit(lat);
  const y = mercY(lat);
  return index.search(lon - d, y - d, lon + d, y + d);
}
