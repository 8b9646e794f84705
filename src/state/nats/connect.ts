/**
 * One connection to the cluster's NATS servers, shared by everything of one thread that keeps
 * state there. The client reconnects by itself, forever: a NATS outage makes requests fail fast
 * with 503 `unavailable` (see `unavailable`), and service comes back when the servers do, without
 * a restart.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { DwellError } from '../../errors.js';

export interface NatsState {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  kvm: Kvm;
  /** Stream and bucket replicas: 3 where the cluster has three servers or more, else 1. */
  replicas: number;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** A name for the server's connection list (`dwell-<host>-<pid>-<thread>`). */
  name?: string;
  /** How long one JetStream request may wait for the cluster before it counts as unavailable. */
  timeoutMs?: number;
}

export async function connectNats(servers: readonly string[], opts: ConnectOptions = {}): Promise<NatsState> {
  const nc = await connect({
    servers: [...servers],
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // Requests made while disconnected fail at once instead of queueing behind the outage.
    waitOnFirstConnect: false,
    timeout: opts.timeoutMs ?? 2_000,
  });
  const timeout = opts.timeoutMs ?? 2_000;
  const js = jetstream(nc, { timeout });
  const jsm = await jetstreamManager(nc, { timeout });
  const peers = (nc.info?.connect_urls?.length ?? 0) + 1;
  return {
    nc, js, jsm, kvm: new Kvm(js),
    replicas: Math.max(servers.length, peers) >= 3 ? 3 : 1,
    close: () => nc.drain().catch(() => nc.close()),
  };
}

/**
 * What a failed call to the cluster means for the client: 503 `unavailable` with a Retry-After
 * for timeouts and lost connections (try again soon), anything else left as it was.
 */
export function unavailable(err: unknown): unknown {
  const e = err as { code?: string; name?: string; message?: string };
  const text = `${e?.name ?? ''} ${e?.code ?? ''} ${e?.message ?? ''}`.toLowerCase();
  // `jetstream is not enabled` is also what a stream answers while it elects a new leader (one server lost).
  if (/timeout|disconnect|closed|no responders|503|connection|jetstream (is )?not enabled|jetstreamnotenabled/.test(text)) {
    return new DwellError('unavailable', 'the state cluster cannot be reached; try again shortly', undefined, 2);
  }
  return err;
}
