/**
 * Recent detections (issue 19): per app, the last detect requests and what Dwell answered, for
 * the explorer (/ui). Bounded by count and age, off for the apps an operator opts out, erased
 * with the user and with the app (contract §7). Embedded: one LMDB environment of its own under
 * the data directory (lmdb.ts); cluster mode: a JetStream stream every node shares
 * (nats.ts), so the explorer shows the same list through any node (contract §8).
 * Reads answer at once from LMDB and asynchronously from the cluster.
 */

type Maybe<T> = T | Promise<T>;

export interface RecentLimits {
  /** Detections kept per app; 0 keeps none. */
  count: number;
  /** How long one is kept, ms; 0: until pushed out by newer ones. */
  maxAgeMs: number;
  /** Apps whose detections are never kept. */
  optOut: ReadonlySet<string>;
}

/** What the detect route hands over once the worker has answered. */
export interface NewDetection {
  at: number;
  user: string | null;
  kind: 'structured' | 'unstructured';
  request_id: string | null;
  tally: { venue: number; transit: number; no_venue: number };
  /** The body as sent, and whether it is gzip. */
  body: Uint8Array; gzip: boolean;
  /** The answer as JSON bytes (the synchronous response, or `{data, geofence_events}` of a queued one): asked for off the request's turn. */
  answer: () => Uint8Array;
}

export interface RecentSummary {
  id: string;
  at: string;
  user: string | null;
  kind: 'structured' | 'unstructured';
  request_id: string | null;
  tally: { venue: number; transit: number; no_venue: number };
}

export interface RecentDetail extends RecentSummary {
  /** The request body, decompressed and parsed. */
  request: unknown;
  /** What was answered: `data` (the visits) and `geofence_events`. */
  answer: unknown;
}

export interface RecentDetections {
  /** Whether `app`'s detections are kept: ask before copying a body. */
  wants(app: string): boolean;
  /** Keeps one, later: returns at once (the write and the trimming happen off the request's turn). */
  record(app: string, d: NewDetection): void;
  /** Newest first, at most `limit`. */
  list(app: string, limit: number): Maybe<RecentSummary[]>;
  get(app: string, id: string): Maybe<RecentDetail | undefined>;
  /** The user's, oldest first, in full (contract §7, the right of access). */
  ofUser(app: string, user: string): Maybe<RecentDetail[]>;
  /** Removes the user's (contract §7); answers how many. */
  eraseUser(app: string, user: string): Promise<number>;
  /** Removes all of the app's; answers how many. */
  deleteApp(app: string): Promise<number>;
  /** Drops what is past the age limit in every app (a timer calls it). */
  sweep(): void;
  /** Waits for the writes begun so far (tests, shutdown). */
  flushed(): Promise<void>;
  close(): Promise<void>;
}
