/**
 * The replay check as the signed-request walk uses it (contract §1): `check` before the rate
 * limit, `record` before the request is acted upon. One implementation for both engines, over the
 * state kit's claims: replay-state.ts `replaysOf`.
 */
export interface Replays {
  check(appKey: string, signature: string, now?: number): void;
  record(appKey: string, signature: string, timestampS: number): Promise<unknown>;
  readonly size: number;
  close(): Promise<void>;
}
