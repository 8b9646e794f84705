/**
 * A point's country (ISO 3166-1 alpha-2) from the place database's borders: the same answer as
 * country-coder's `iso1A2Code([lon, lat])`, computed the same way over shared typed arrays. The
 * R-tree is searched in rbush's order (children in turn, deeper nodes from a stack, last pushed
 * first) and the first polygon whose rings contain the point by which-polygon's ray casting
 * decides; each polygon's answer was worked out at build time (build.ts). The same arithmetic
 * on the same float64 coordinates gives the same answer on a border.
 */
import type { Sections } from './layout.js';

export type Borders = Pick<Sections, 'nodeBox' | 'nodeInfo' | 'nodeChildren' | 'itemBox' | 'itemRings' | 'itemAnswer' | 'ringPoints' | 'points'>;

const inBox = (box: Float64Array, i: number, x: number, y: number) =>
  box[4 * i] <= x && box[4 * i + 1] <= y && box[4 * i + 2] >= x && box[4 * i + 3] >= y;
// rbush's contains(point, box): only a box that is the point itself.
const boxIsPoint = (box: Float64Array, i: number, x: number, y: number) =>
  x <= box[4 * i] && y <= box[4 * i + 1] && box[4 * i + 2] <= x && box[4 * i + 3] <= y;

function inside(b: Borders, item: number, x: number, y: number): boolean {
  let isIn = false;
  const r0 = b.itemRings[2 * item], rings = b.itemRings[2 * item + 1];
  const p = b.points;
  for (let r = r0; r < r0 + rings; r++) {
    const start = b.ringPoints[2 * r], len = b.ringPoints[2 * r + 1];
    for (let j = 0, k = len - 1; j < len; k = j++) {
      const x1 = p[2 * (start + j)], y1 = p[2 * (start + j) + 1], x2 = p[2 * (start + k)], y2 = p[2 * (start + k) + 1];
      if ((y1 > y) !== (y2 > y) && x < ((x2 - x1) * (y - y1)) / (y2 - y1) + x1) isIn = !isIn;
    }
  }
  return isIn;
}

/** The code of the first containing polygon's answer in search order, 0 for none. */
export function countryCodeAt(b: Borders, lon: number, lat: number): number {
  if (!inBox(b.nodeBox, 0, lon, lat)) return 0;
  const stack: number[] = [];
  const found = (item: number) => inside(b, item, lon, lat);
  // rbush's _all: every item under a node, in its order.
  const all = (node: number): number => {
    const pending = [node];
    for (let n = pending.pop(); n !== undefined; n = pending.pop()) {
      const leaf = b.nodeInfo[3 * n] === 1, from = b.nodeInfo[3 * n + 1], count = b.nodeInfo[3 * n + 2];
      for (let c = from; c < from + count; c++) {
        if (!leaf) pending.push(b.nodeChildren[c]);
        else if (found(b.nodeChildren[c])) return b.itemAnswer[b.nodeChildren[c]] || -1;
      }
    }
    return 0;
  };
  for (let node: number | undefined = 0; node !== undefined; node = stack.pop()) {
    const leaf = b.nodeInfo[3 * node] === 1, from = b.nodeInfo[3 * node + 1], count = b.nodeInfo[3 * node + 2];
    for (let c = from; c < from + count; c++) {
      const child = b.nodeChildren[c];
      if (leaf) {
        if (inBox(b.itemBox, child, lon, lat) && found(child)) return b.itemAnswer[child];
      } else if (inBox(b.nodeBox, child, lon, lat)) {
        if (boxIsPoint(b.nodeBox, child, lon, lat)) {
          const a = all(child);
          if (a !== 0) return a === -1 ? 0 : a;
        } else stack.push(child);
      }
    }
  }
  return 0;
}
