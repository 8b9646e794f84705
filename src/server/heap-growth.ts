/**
 * When V8 starts a full collection of a detection worker's heap. Left to its heuristics, V8 grew
 * a worker's old generation by a factor of only 1.1–1.4 past what survived (it grows less where
 * collecting looks cheap), so a worker holding ~82 MB ran a full collection every 5–15 s under
 * steady load; and its memory reducer started the same kind of collection in both workers at the
 * same moment, so both paused at once (45–65 ms each, plus marking steps of up to 20 ms inside
 * requests). Those were most of bench:soak's detections over 50 ms. A fixed factor of 2 leaves a
 * whole live heap of headroom (about 2 minutes between full collections at 300 req/s), and without
 * the memory reducer each worker collects when its own heap is full, not when both look idle.
 * The memory formula of docs/operating.md ("Memory") already counts that much garbage per worker.
 *
 * V8's flags belong to the process: set before the pool starts, they cover every worker.
 */
import v8 from 'node:v8';

/** Heap growing factor as 1 + percent / 100 (V8's --heap-growing-percent; 0 is its heuristics). */
export const HEAP_GROWING_PERCENT = 100;

let set = false;

export function fixHeapGrowth(): void {
  if (set) return;
  set = true;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  v8.setFlagsFromString('--no-memory-reducer');
}
