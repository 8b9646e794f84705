/**
 * Creating a stream (a KV bucket, an object store, the outbox) that another node may be creating
 * at the same moment. Every node of a cluster creates what it needs at start-up, and adding a
 * stream that exists with the same settings is a no-op, but nats-server 2.9 answers the second of
 * two *concurrent* adds with 10065 "subjects overlap with an existing stream" (the first one's
 * subjects are taken while its stream is not yet listed under its name). Two nodes started
 * together failed to start on it (cluster suite, geofences-bulk, once in CI). Asked again a moment
 * later, the server finds the stream by name and the add succeeds.
 */
import { JetStreamApiError } from '@nats-io/jetstream';
import { monotonicMs } from '../../time/wall.js';

/** nats-server's JSStreamSubjectOverlapErr. */
const SUBJECTS_OVERLAP = 10065;
/** Long enough for the other node's add to finish on a loaded server; a real overlap (a stream of someone else's on our subjects) still fails fast enough to read. */
const RACE_WINDOW_MS = 5_000;

const isSubjectOverlap = (err: unknown): boolean => err instanceof JetStreamApiError && err.code === SUBJECTS_OVERLAP;

/** Runs `add`, asking again while the server answers "subjects overlap", for at most `windowMs`. */
export async function creating<T>(add: () => Promise<T>, windowMs = RACE_WINDOW_MS): Promise<T> {
  const until = monotonicMs() + windowMs;
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    try {
      return await add();
    } catch (err) {
      if (!isSubjectOverlap(err) || monotonicMs() + wait > until) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
