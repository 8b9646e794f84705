/**
 * One connection to the cluster's NATS servers, shared by everything of one thread that keeps
 * state there. The client reconnects by itself, forever: a NATS outage makes requests fail fast
 * with 503 `unavailable` (see `unavailable`), and service comes back when the servers do, without
 * a restart.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiError, JetStreamError, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { DwellError } from '../../errors.js';
import { monotonicMs } from '../../time/wall.js';

export interface NatsState {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  kvm: Kvm;
  /** Stream and bucket replicas: 3 where the cluster has three servers or more, else 1. */
  replicas: number;
  /** Whether the connection is up: open, and connected (no disconnect since its last reconnect). */
  isUp(): boolean;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** A name for the server's connection list (`dwell-<host>-<pid>-<thread>`). */
  name?: string;
  /** How long one JetStream request may wait for the cluster before it counts as unavailable. */
  timeoutMs?: number;
}

export async function connectNats(servers: readonly string[], opts: ConnectOptions = {}): Promise<NatsState> {
  const nc = await retrying(() => connect({
    servers: [...servers],
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // Requests made while disconnected fail at once instead of queueing behind the outage.
    waitOnFirstConnect: false,
    timeout: opts.timeoutMs ?? 2_000,
  })).catch((err) => { throw unavailable(err); });
  const isUp = followStatus(nc);
  const timeout = opts.timeoutMs ?? 2_000;
  const js = jetstream(nc, { timeout });
  // The manager asks the cluster for the account first: a thread that opens its connection while a
  // server is lost (a detection worker's first task) rides out the election like any call, and an
  // outage is a 503, never an internal error.
  let jsm: JetStreamManager;
  try {
    jsm = await retrying(() => jetstreamManager(nc, { timeout }));
  } catch (err) {
    await nc.close().catch(() => {});
    throw unavailable(err);
  }
  const peers = (nc.info?.connect_urls?.length ?? 0) + 1;
  return {
    nc, js, jsm, kvm: new Kvm(js),
    replicas: Math.max(servers.length, peers) >= 3 ? 3 : 1,
    isUp,
    close: () => nc.drain().catch(() => nc.close()),
  };
}

/**
 * JetStream API errors that mean "this stream or the cluster has no leader just now", which a
 * lost server causes until the rest elect one (nats-server's errors.json): 10008 system
 * temporarily unavailable, 10009 cluster cannot handle the request, 10118 stream offline, 10076 and
 * 10039 JetStream not enabled (what a server answers for a stream while it elects).
 */
const NO_LEADER_CODES = new Set([10008, 10009, 10118, 10076, 10039]);
/** HTTP-like statuses JetStream answers with for the same conditions, and for timeouts. */
const RETRY_STATUSES = new Set([408, 503, 504]);

/** Whether a failed cluster call is an outage or an election (try again soon), not a fault of the call. */
export function isTransient(err: unknown): boolean {
  for (let e = err as { cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e instanceof JetStreamApiError) {
      if (NO_LEADER_CODES.has(e.code) || RETRY_STATUSES.has(e.status)) return true;
      continue;
    }
    // JetStreamStatusError (not exported) carries the status as a numeric `code`.
    if (e instanceof JetStreamError && RETRY_STATUSES.has((e as { code?: unknown }).code as number)) return true;
    const x = e as { code?: unknown; name?: unknown; message?: unknown };
    const text = `${x.name ?? ''} ${x.code ?? ''} ${x.message ?? ''}`.toLowerCase();
    if (/timeout|disconnect|closed|no ?responders|\b503\b|connection|temporarily unavailable|jetstream ?(is )?not ?enabled/.test(text)) return true;
  }
  return false;
}

/**
 * How long one call to the cluster keeps retrying an outage or an election before it gives up
 * (then 503): a server lost takes the client a moment to reconnect to another and JetStream a few
 * seconds to elect new leaders, and a request should ride that out rather than be refused
 * (contract §8). Once this thread's connection has been down and its calls failing for longer
 * than this, calls fail at once instead (an outage, not a failover), so a request never waits
 * this long more than once. While the connection is up, a failing call is an election (or a
 * leader not yet caught up) and keeps its whole window: with the rule keyed to failures alone, a
 * request just after an election that took longer than the window was refused at its first
 * failure (e2e/cluster-state-outage, once in CI).
 */
export const RETRY_WINDOW_MS = 5_000;
/** Since when calls of this thread have failed for an outage, with no answer since; 0 while the cluster answers. */
let failingSince = 0;
/** Whether this thread's connection to the cluster is up (its last status: a disconnect, or a reconnect since). */
let connected = true;

/** Follows a connection's status, for `retrying` (one connection a thread: see the file's comment) and its own `isUp`. */
function followStatus(nc: NatsConnection): () => boolean {
  let up = true;
  connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = up = false;
      else if (s.type === 'reconnect') connected = up = true;
    }
  })();
  return () => up && !nc.isClosed();
}

/** Runs `call`, again after a short wait while it fails for an outage or an election (see RETRY_WINDOW_MS). */
export async function retrying<T>(call: () => Promise<T>, windowMs = RETRY_WINDOW_MS): Promise<T> {
  const end = monotonicMs() + windowMs;
  for (let wait = 50; ; wait = Math.min(wait * 2, 400)) {
    try {
      const out = await call();
      failingSince = 0;
      return out;
    } catch (err) {
      if (!isTransient(err)) { failingSince = 0; throw err; }
      const now = monotonicMs();
      failingSince ||= now;
      if ((!connected && now - failingSince > windowMs) || now + wait > end) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * What a failed call to the cluster means for the client: 503 `unavailable` with a Retry-After
 * for outages and elections (try again soon), anything else left as it was.
 */
export function unavailable(err: unknown): unknown {
  return isTransient(err) ? new DwellError('unavailable', 'the state cluster cannot be reached; try again shortly', undefined, 2) : err;
}
