/**
 * What a nats-server did over a benchmark's phase, from its own monitoring endpoints (`-m`):
 * messages and bytes in and out (/varz), writes stored per stream (/jsz: the growth of each
 * stream's last sequence; a KV bucket is the stream `KV_<bucket>`), and the bytes its process
 * wrote to disk (/proc/<pid>/io, Linux). Readings are taken before and after; `trafficBetween`
 * answers the difference.
 */
import { readFileSync } from 'node:fs';

export interface NatsReading {
  inMsgs: number;
  inBytes: number;
  outMsgs: number;
  outBytes: number;
  /** JetStream API calls (stream info, consumer creation…; KV gets and puts are not API calls). */
  apiCalls: number;
  /** Last sequence of each stream, by stream name. */
  streams: Map<string, number>;
  /** Bytes the server process caused to be written to storage (NaN when /proc is not readable). */
  diskBytes: number;
}

export interface NatsTraffic extends Omit<NatsReading, 'streams'> {
  /** Messages stored per stream over the phase, streams with none left out. */
  stored: Map<string, number>;
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (res.status !== 200) throw new Error(`GET ${url}: expected 200, got ${res.status} ${(await res.text()).slice(0, 200)}`);
  return (await res.json()) as T;
}

function diskWrites(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const m = /^write_bytes:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

interface Varz { in_msgs: number; in_bytes: number; out_msgs: number; out_bytes: number }
interface Jsz {
  api?: { total: number };
  account_details?: Array<{ stream_detail?: Array<{ name: string; state: { last_seq: number } }> }>;
}

/** One reading of the server whose monitoring endpoints are at `monitorUrl`. */
export async function readNats(monitorUrl: string, pid?: number): Promise<NatsReading> {
  const [v, j] = await Promise.all([json<Varz>(monitorUrl + '/varz'), json<Jsz>(monitorUrl + '/jsz?accounts=true&streams=true')]);
  const streams = new Map<string, number>();
  for (const a of j.account_details ?? []) for (const s of a.stream_detail ?? []) streams.set(s.name, s.state.last_seq);
  return {
    inMsgs: v.in_msgs, inBytes: v.in_bytes, outMsgs: v.out_msgs, outBytes: v.out_bytes,
    apiCalls: j.api?.total ?? 0, streams, diskBytes: diskWrites(pid),
  };
}

export function trafficBetween(a: NatsReading, b: NatsReading): NatsTraffic {
  const stored = new Map<string, number>();
  for (const [name, seq] of b.streams) {
    const n = seq - (a.streams.get(name) ?? 0);
    if (n > 0) stored.set(name, n);
  }
  return {
    inMsgs: b.inMsgs - a.inMsgs, inBytes: b.inBytes - a.inBytes, outMsgs: b.outMsgs - a.outMsgs, outBytes: b.outBytes - a.outBytes,
    apiCalls: b.apiCalls - a.apiCalls, diskBytes: b.diskBytes - a.diskBytes, stored,
  };
}

export interface MonitoredServer { monitorUrl: string; pid: number | undefined }

/**
 * Starts a measurement over every server of a cluster; `end()` answers their traffic summed
 * (route traffic between them included: replication is part of a write's cost), and the writes
 * stored per stream once, however many replicas hold it.
 */
export async function natsMeter(servers: readonly MonitoredServer[]): Promise<{ end(): Promise<NatsTraffic> }> {
  const before = await Promise.all(servers.map((s) => readNats(s.monitorUrl, s.pid)));
  return {
    end: async () => {
      const after = await Promise.all(servers.map((s) => readNats(s.monitorUrl, s.pid)));
      return sumTraffic(after.map((b, i) => trafficBetween(before[i], b)));
    },
  };
}

export function sumTraffic(ts: readonly NatsTraffic[]): NatsTraffic {
  const stored = new Map<string, number>();
  for (const t of ts) for (const [name, n] of t.stored) stored.set(name, Math.max(n, stored.get(name) ?? 0));
  const sum = (f: (t: NatsTraffic) => number) => ts.reduce((a, t) => a + f(t), 0);
  return {
    inMsgs: sum((t) => t.inMsgs), inBytes: sum((t) => t.inBytes), outMsgs: sum((t) => t.outMsgs), outBytes: sum((t) => t.outBytes),
    apiCalls: sum((t) => t.apiCalls), diskBytes: sum((t) => t.diskBytes), stored,
  };
}

/** `KV_dwell-users-2` → `dwell-users-*`: user partitions summed, as one kind of write. */
export function bucketKind(stream: string): string {
  return stream.replace(/^KV_/, '').replace(/-\d+$/, '-*');
}

/** Stored messages per request by kind of bucket or stream, e.g. `dwell-replay 1.00, dwell-users-* 1.00`. */
export function storedPerRequest(t: NatsTraffic, requests: number): Array<[string, number]> {
  const byKind = new Map<string, number>();
  for (const [name, n] of t.stored) byKind.set(bucketKind(name), (byKind.get(bucketKind(name)) ?? 0) + n);
  return [...byKind].map(([k, n]): [string, number] => [k, n / Math.max(1, requests)]).sort((x, y) => y[1] - x[1]);
}
