/**
 * Recent detections in cluster mode (recent/types.ts, contract §8): one JetStream stream every
 * node publishes to and reads, so the explorer lists the same detections through any node, and an
 * erase or an export through any node reaches them all (contract §7).
 *
 * One subject per app, `dwell.recent.<app>`. The stream bounds them itself: at most `count`
 * messages per subject (the oldest go first) and none older than the age limit, so no node has to
 * trim or sweep. A detection is one message: its summary in headers, the body as sent followed by
 * the answer as data. Its id is the stream sequence. The user id is a header, never in a subject
 * (subjects show in server logs). Lists, erases and exports walk one app's subject: at most
 * `count` gets from the stream's leader (outbox-scan.ts).
 */
import { headers, nanos, type MsgHdrs } from '@nats-io/transport-node';
import { RetentionPolicy, StorageType, type StoredMsg } from '@nats-io/jetstream';
import { log } from '../log.js';
import type { NewDetection, RecentDetail, RecentDetections, RecentLimits, RecentSummary } from './types.js';
import { parsed } from './bytes.js';
import { retrying, unavailable, type NatsState } from '../state/nats/connect.js';
import { scan } from '../state/nats/outbox-scan.js';
import { appToken } from '../state/nats/outbox-subjects.js';
import { creating } from '../state/nats/create.js';
import { clock } from '../time/clock.js';

export const RECENT_STREAM = 'DWELL_RECENT';
const subjectOf = (app: string) => `dwell.recent.${appToken(app)}`;
const H = { user: 'Dwell-User', kind: 'Dwell-Kind', request: 'Dwell-Request-Id', tally: 'Dwell-Tally', gzip: 'Dwell-Gzip', at: 'Dwell-At', bodyLength: 'Dwell-Body-Length' } as const;

/** Creates the stream, or sets this node's limits on it (nodes of one cluster run with one configuration). */
async function ensureStream(ns: NatsState, limits: RecentLimits): Promise<void> {
  const cfg = {
    subjects: ['dwell.recent.>'], retention: RetentionPolicy.Limits, storage: StorageType.File,
    max_msgs_per_subject: Math.max(1, limits.count), max_age: limits.maxAgeMs ? nanos(limits.maxAgeMs) : 0, allow_direct: true,
  };
  try {
    await creating(() => ns.jsm.streams.add({ name: RECENT_STREAM, num_replicas: ns.replicas, ...cfg }));
  } catch {
    await ns.jsm.streams.update(RECENT_STREAM, cfg);
  }
}

const enc = (v: string) => encodeURIComponent(v);
const dec = (v: string | undefined) => (v ? decodeURIComponent(v) : null);

function summaryOf(m: StoredMsg): RecentSummary {
  const h = (k: string) => m.header?.get(k) || undefined;
  const [venue = 0, transit = 0, no_venue = 0] = (h(H.tally) ?? '').split(',').map(Number);
  return {
    id: m.seq.toString(36), at: new Date(Number(h(H.at)) || m.time.getTime()).toISOString(), user: dec(h(H.user)),
    kind: h(H.kind) === 'unstructured' ? 'unstructured' : 'structured', request_id: dec(h(H.request)), tally: { venue, transit, no_venue },
  };
}

function detailOf(m: StoredMsg): RecentDetail {
  const split = Number(m.header?.get(H.bodyLength) ?? m.data.length);
  return { ...summaryOf(m), request: parsed(m.data.subarray(0, split), m.header?.get(H.gzip) === '1'), answer: parsed(m.data.subarray(split), false) };
}

export async function natsRecent(ns: NatsState, limits: RecentLimits): Promise<RecentDetections> {
  if (limits.count > 0) await retrying(() => ensureStream(ns, limits), 30_000).catch((err) => { throw unavailable(err); });
  const writes = new Set<Promise<unknown>>();
  const fresh = (m: StoredMsg) => !limits.maxAgeMs || m.time.getTime() >= clock.now() - limits.maxAgeMs;
  const walk = async (app: string, each: (m: StoredMsg) => void | Promise<void>) => {
    if (limits.count === 0) return; // kept by none: the stream may not exist
    try {
      const seen: StoredMsg[] = [];
      await retrying(async () => { seen.length = 0; for await (const m of scan(ns.jsm, RECENT_STREAM, subjectOf(app))) seen.push(m); });
      for (const m of seen) if (fresh(m)) await each(m);
    } catch (err) {
      throw unavailable(err);
    }
  };
  const publish = (app: string, d: NewDetection) => {
    const h: MsgHdrs = headers();
    if (d.user !== null) h.set(H.user, enc(d.user));
    if (d.request_id !== null) h.set(H.request, enc(d.request_id));
    h.set(H.kind, d.kind);
    h.set(H.tally, `${d.tally.venue},${d.tally.transit},${d.tally.no_venue}`);
    h.set(H.gzip, d.gzip ? '1' : '0');
    h.set(H.at, String(d.at));
    h.set(H.bodyLength, String(d.body.length));
    const data = Buffer.concat([d.body, d.answer()]);
    const p = ns.js.publish(subjectOf(app), data, { headers: h }).catch((err) => {
      // Losing one costs the explorer a row; the detection was answered.
      log.warn('recent detection not kept', { error: String((err as Error)?.message ?? err) });
    });
    writes.add(p);
    void p.finally(() => writes.delete(p));
  };
  return {
    wants: (app) => limits.count > 0 && !limits.optOut.has(app),
    // Off the request's turn: the answer is serialised and published on the next one.
    record: (app, d) => { setImmediate(() => publish(app, d)); },
    async list(app, limit) {
      const out: RecentSummary[] = [];
      await walk(app, (m) => { out.push(summaryOf(m)); });
      return out.reverse().slice(0, limit);
    },
    async get(app, id) {
      const seq = /^[0-9a-z]{1,12}$/.test(id) ? parseInt(id, 36) : 0;
      if (!seq) return undefined;
      const m = await retrying(() => ns.jsm.direct.getMessage(RECENT_STREAM, { seq })).catch((err) => {
        if (String((err as Error)?.message ?? err).includes('not found')) return null;
        throw unavailable(err);
      });
      return m && m.subject === subjectOf(app) && fresh(m) ? detailOf(m) : undefined;
    },
    async ofUser(app, user) {
      const out: RecentDetail[] = [];
      await walk(app, (m) => { if (dec(m.header?.get(H.user)) === user) out.push(detailOf(m)); });
      return out;
    },
    async eraseUser(app, user) {
      await Promise.all(writes); // a detection recorded just before is erased too
      const seqs: number[] = [];
      await walk(app, (m) => { if (dec(m.header?.get(H.user)) === user) seqs.push(m.seq); });
      for (const seq of seqs) await retrying(() => ns.jsm.streams.deleteMessage(RECENT_STREAM, seq, false)).catch((err) => {
          if (/not found/i.test(String((err as Error)?.message ?? err))) return false; // gone already (aged out, or our retried delete)
          throw unavailable(err);
        });
      return seqs.length;
    },
    async deleteApp(app) {
      if (limits.count === 0) return 0;
      await Promise.all(writes);
      const r = await retrying(() => ns.jsm.streams.purge(RECENT_STREAM, { filter: subjectOf(app) })).catch((err) => { throw unavailable(err); });
      return r.purged;
    },
    sweep() { /* the stream's max_age ages them out */ },
    async flushed() {
      await new Promise((r) => setImmediate(r));
      await Promise.all(writes);
    },
    async close() {
      await new Promise((r) => setImmediate(r));
      await Promise.all(writes);
    },
  };
}
