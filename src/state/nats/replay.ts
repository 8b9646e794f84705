/**
 * The replay check shared by every node: a claim is a KV create of `<app>.<signature>` in the
 * bucket `dwell-replay`, which the cluster lets only one writer win. The bucket's TTL is the
 * longest a claim can matter (a timestamp is fresh 300 s either side of now), so it needs no sweep.
 */
import { randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { ReplayState } from '../types.js';
import { decode, encode, guard, isConflict } from './kv.js';
import { wallNow } from '../../time/wall.js';

export const REPLAY_TTL_MS = 660_000;

/**
 * A claim is stored as [until (unix s), claimant]: a create retried through a failover that had
 * been stored the first time finds its own claimant there, not someone else's (no false replay).
 * Claims stored as a bare number by earlier versions read the same.
 */
type Claim = number | [number, string];
const untilOf = (c: Claim | undefined) => (Array.isArray(c) ? c[0] : c);

export function natsReplay(kv: KV, now = wallNow): ReplayState {
  return {
    async claim(key, untilS) {
      const mine: Claim = [untilS, randomBytes(8).toString('hex')];
      const isMine = (c: Claim | undefined) => Array.isArray(c) && c[1] === mine[1];
      try {
        await guard(() => kv.create(key, encode(mine)));
        return true;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      // Taken: still a replay unless that claim ran out before the bucket dropped it.
      const e = await guard(() => kv.get(key));
      const held = decode<Claim>(e);
      if (isMine(held)) return true;
      const until = untilOf(held);
      if (until !== undefined && until * 1000 >= now()) return false;
      try {
        await guard(() => e ? kv.update(key, encode(mine), e.revision) : kv.create(key, encode(mine)));
        return true;
      } catch (err) {
        if (isConflict(err)) return isMine(decode<Claim>(await guard(() => kv.get(key))));
        throw err;
      }
    },
    // The cluster decides every claim: nothing is refused before asking it.
    known: () => false,
    size: 0,
    close: async () => {},
  };
}
