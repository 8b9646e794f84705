/**
 * After an answer given before the request's body was read (413 by Content-Length, 401, 415:
 * contract §5), the rest of the body is read and thrown away before the response ends. Closing
 * at once would reset a connection the client is still writing to, and a reset can destroy the
 * answer in the client's buffers before it is read: the client would see "connection reset"
 * instead of the 413.
 *
 * Bounded: at most DISCARD_MAX_BYTES after the answer, for at most DISCARD_MAX_MS; past either
 * the connection is closed (a client still sending then may see a reset). A body that ends
 * within the bound leaves the connection open for the next request, unless the answer said
 * `Connection: close`.
 */
import type { Wire } from './wire.js';

/** The part of an Exchange (reply.ts) this reads: declared here so reply.ts can use discardRest without a cycle. */
export interface BodyInProgress {
  readonly res: Wire;
  readonly aborted: boolean;
  readonly bodyBytes: number;
  readonly bodyEnded: boolean;
  onBody(read: () => void): void;
}

export const DISCARD_MAX_BYTES = 4 << 20;
export const DISCARD_MAX_MS = 10_000;

export function discardRest(ex: BodyInProgress, closeAfter: boolean, maxBytes = DISCARD_MAX_BYTES, maxMs = DISCARD_MAX_MS): void {
  const from = ex.bodyBytes;
  let ended = false;
  const end = (close: boolean) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    // The client may have gone meanwhile: the response is then no longer ours to touch.
    if (!ex.aborted) ex.res.cork(() => ex.res.end(undefined, close));
  };
  const timer = setTimeout(() => end(true), maxMs);
  timer.unref();
  const check = () => {
    if (ex.bodyEnded) end(closeAfter);
    else if (ex.aborted || ex.bodyBytes - from > maxBytes) end(true);
  };
  ex.onBody(check);
  check();
}
