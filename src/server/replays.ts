/**
 * The replay check as the signed-request walk uses it (contract §1): `check` before the rate
 * limit, `record` before the request is acted upon. Embedded: the ReplayCache (a Map in front of
 * LMDB). Cluster: a claim in the cluster's replay state, which refuses on every node a signature
 * accepted on any; `check` is then only a local early refusal, the claim decides.
 */
import { DwellError } from '../errors.js';
import type { ReplayState } from '../state/types.js';
import { STALE_AFTER_S } from './auth.js';

export interface Replays {
  check(appKey: string, signature: string, now?: number): void;
  record(appKey: string, signature: string, timestampS: number): Promise<unknown>;
  readonly size: number;
  close(): Promise<void>;
}

const replayed = () => new DwellError('replayed_request', 'this signature was already used; sign each request with a fresh timestamp');

export function clusterReplays(state: ReplayState): Replays {
  return {
    check: () => {},
    async record(appKey, signature, timestampS) {
      // 128 bits of the signature identify it as well as all 256 (as in replay-cache.ts).
      if (!(await state.claim(`${appKey}.${signature.slice(0, 32)}`, timestampS + STALE_AFTER_S))) throw replayed();
    },
    size: 0,
    close: async () => {},
  };
}
