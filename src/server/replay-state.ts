/**
 * Signatures already accepted (contract §1) as the state kit holds them (state/types.ts
 * ReplayState), and the signed-request walk's view of them (replays.ts Replays), the same for both
 * engines: `check` refuses at once what this node already knows claimed, before the rate limit;
 * `record` claims, before the request is acted upon, and refuses what any node claimed first.
 */
import { DwellError } from '../errors.js';
import type { ReplayState } from '../state/types.js';
import { STALE_AFTER_S } from './auth.js';
import type { ReplayCache } from './replay-cache.js';
import type { Replays } from './replays.js';

/**
 * A claim's key: 128 bits of the signature identify it as well as all 256 (as in replay-cache.ts).
 * The embedded claim splits it again for the cache, which files (app key, signature) as it always
 * has (replay.mdb written before stays valid); building and splitting the key is what the seam
 * costs a write request on the HTTP thread (about 7.7 k instructions), which a ReplayState keyed
 * by (app key, signature) would save.
 */
const claimKey = (appKey: string, signature: string) => `${appKey}.${signature.slice(0, 32)}`;

const replayed = () => new DwellError('replayed_request', 'this signature was already used; sign each request with a fresh timestamp');
const refuseUnclaimed = (claimed: boolean): void => { if (!claimed) throw replayed(); };

export function replaysOf(state: ReplayState): Replays {
  return {
    check(appKey, signature) { if (state.known(claimKey(appKey, signature))) throw replayed(); },
    // Not async: one promise a request, the claim's (the HTTP thread runs this for every write).
    record: (appKey, signature, timestampS) => state.claim(claimKey(appKey, signature), timestampS + STALE_AFTER_S).then(refuseUnclaimed),
    get size() { return state.size; },
    close: () => state.close(),
  };
}

/**
 * The embedded engine's claims: the ReplayCache of the data directory (a Map in front of LMDB,
 * one per process, read when it opens). One process owns the directory, so what its Map knows is
 * every claim there is: `known` decides, and a claim is the cache's record.
 */
export function lmdbReplay(cache: ReplayCache): ReplayState {
  // A claim key is `<app key>.<signature>`; app keys hold no dot. The cache files them as before (app key, signature).
  const known = (key: string) => {
    const dot = key.indexOf('.');
    try {
      cache.check(key.slice(0, dot), key.slice(dot + 1));
      return false;
    } catch (err) {
      if (err instanceof DwellError) return true;
      throw err;
    }
  };
  return {
    known,
    claim(key, untilS) {
      if (known(key)) return Promise.resolve(false);
      const dot = key.indexOf('.');
      // lmdb-js resolves a put with true once committed: the claim's answer, with no promise of its own.
      return cache.record(key.slice(0, dot), key.slice(dot + 1), untilS - STALE_AFTER_S) as Promise<boolean>;
    },
    get size() { return cache.size; },
    close: () => cache.close(),
  };
}
