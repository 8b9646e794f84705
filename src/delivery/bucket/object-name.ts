/**
 * Object names of contract §3:
 * `<prefix>/dt=YYYY-MM-DD/hour=HH/<app_key>-<UTC yyyymmddThhmmss>-<unique>.jsonl.gz`.
 *
 * The prefix is trimmed of slashes at both ends: an empty prefix gives `dt=…` with no leading
 * slash (a leading `/` makes an empty-named folder in S3 consoles and breaks `dt=` partition
 * discovery in Athena/BigQuery), and `exports/` and `exports` name the same place.
 */
import { uniquePart } from './node-id.js';

export function normalizePrefix(prefix: string | undefined): string {
  return (prefix ?? '').replace(/^\/+|\/+$/g, '');
}

/**
 * `closedAt` (ms) decides both the hour partition and the timestamp, always in UTC; `unique` is
 * node id + counter (node-id.ts), so names from the nodes of a cluster never collide.
 */
export function objectName(prefix: string | undefined, appKey: string, closedAt: number, unique = uniquePart()): string {
  const iso = new Date(closedAt).toISOString(); // 2024-05-06T07:25:03.123Z
  const day = iso.slice(0, 10);
  const hour = iso.slice(11, 13);
  const stamp = iso.slice(0, 19).replace(/[-:]/g, ''); // 20240506T072503
  const p = normalizePrefix(prefix);
  return `${p ? p + '/' : ''}dt=${day}/hour=${hour}/${appKey}-${stamp}-${unique}.jsonl.gz`;
}
