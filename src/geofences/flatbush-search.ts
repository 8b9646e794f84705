/** Flatbush searched from the grid tier's hot path (grid.ts). */
import type Flatbush from 'flatbush';

/**
 * Where a search writes candidate slots for the exact test (Flatbush's): `reserve(k)` makes room
 * for k more at `n`.
 */
export interface Candidates { buf: Int32Array; n: number; reserve(k: number): Int32Array }

/**
 * Flatbush's search over its packed arrays, without its per-call arrays and callback.
 * `slots` maps item numbers to slots (null: the item number is the slot).
 */
export function searchFlatbush(tree: Flatbush, slots: Uint32Array | null, x0: number, y0: number, x1: number, y1: number,
  v: Candidates, holder: { stackFor(n: number): Int32Array }): void {
  const boxes = tree._boxes, indices = tree._indices, bounds = tree._levelBounds;
  const nodeSize4 = tree.nodeSize * 4, items4 = tree.numItems * 4;
  let stack = holder.stackFor(64), sp = 0;
  let node = boxes.length - 4, level = bounds.length - 1;
  for (;;) {
    const end = Math.min(node + nodeSize4, bounds[level]);
    const inner = node >= items4;
    for (let pos = node; pos < end; pos += 4) {
      if (x1 < boxes[pos] || y1 < boxes[pos + 1] || x0 > boxes[pos + 2] || y0 > boxes[pos + 3]) continue;
      const index = indices[pos >> 2];
      if (inner) {
        if (sp + 2 > stack.length) { const next = holder.stackFor(2 * stack.length); next.set(stack); stack = next; }
        stack[sp++] = index;
        stack[sp++] = level - 1;
      } else {
        v.reserve(1)[v.n++] = slots === null ? index : slots[index];
      }
    }
    if (sp === 0) return;
    level = stack[--sp];
    node = stack[--sp];
  }
}
