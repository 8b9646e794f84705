/**
 * Unique parts of bucket object names that stay unique across the nodes of a cluster: this
 * delivery worker's node id (48 random bits, drawn once at start and logged, so an object can be
 * traced to the node that uploaded it) followed by a counter of this worker's uploads. Two
 * objects of one app closed in the same second collide only if two nodes drew the same id
 * (about 1 in 10^14 for a pair) and reached the same count; within one node, never. Hex only,
 * so names keep the contract's `<app_key>-<stamp>-<unique>` shape.
 */
import { randomBytes } from 'node:crypto';

export const NODE_ID = randomBytes(6).toString('hex');
let count = 0;

export function uniquePart(): string {
  return NODE_ID + (count++).toString(16).padStart(8, '0');
}
