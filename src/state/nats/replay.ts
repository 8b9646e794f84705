/**
 * The replay check shared by every node: a claim is a KV create of `<app>.<signature>` in the
 * bucket `dwell-replay`, which the cluster lets only one writer win. The bucket's TTL is the
 * longest a claim can matter (a timestamp is fresh 300 s either side of now), so it needs no sweep.
 */
import type { KV } from '@nats-io/kv';
import type { ReplayState } from '../types.js';
import { decode, encode, guard, isConflict } from './kv.js';

export const REPLAY_TTL_MS = 660_000;

export function natsReplay(kv: KV, now = () => Date.now()): ReplayState {
  return {
    async claim(key, untilS) {
      try {
        await guard(kv.create(key, encode(untilS)));
        return true;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      // Taken: still a replay unless that claim ran out before the bucket dropped it.
      const e = await guard(kv.get(key));
      const until = decode<number>(e);
      if (until !== undefined && until * 1000 >= now()) return false;
      try {
        await guard(e ? kv.update(key, encode(untilS), e.revision) : kv.create(key, encode(untilS)));
        return true;
      } catch (err) {
        if (isConflict(err)) return false;
        throw err;
      }
    },
  };
}
