/**
 * Seeded user records as detection leaves them, for benchmarks that fill a users store directly
 * (bench:privacy's retention backlog, bench:backup's populated data directory).
 */
import type { UserRecord } from '../../src/users/records.js';
import type { rng } from './rng.js';
import { DAY_MS } from '../../src/users/touch.js';

/** A record after `visits` visits to as many venues over the 200 days before `now`, last written at `d`. */
export function seededRecord(r: ReturnType<typeof rng>, visits: number, now: number, d = now): UserRecord {
  const h: UserRecord['h'] = {};
  const ids: string[] = [];
  const v: number[] = [];
  const t: Array<string | number> = [];
  let at = now - 200 * DAY_MS;
  for (let k = 0; k < visits; k++) {
    at += r.int(1, 5) * 3_600_000;
    const venue = `osm_n${r.int(1e8, 9e9)}`;
    const id = `${Math.floor(r.next() * 2 ** 52).toString(36)}${Math.floor(r.next() * 2 ** 40).toString(36)}`;
    h[venue] = { f: at, l: at, p: -1, n: Math.round(r.float(0.3, 1) * 1000) / 1000, i: id };
    ids.push(id);
    v.push(43.73 + r.float(0, 0.02), 7.41 + r.float(0, 0.03), r.int(8, 60), Math.round(at / 1000));
    t.push(venue, 0.8, `osm_n${r.int(1e8, 9e9)}`, 0.1);
  }
  return { h, r: ids, v, t, d };
}
