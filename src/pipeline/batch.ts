/**
 * A batch of detections in one worker (server/pool.ts gathers the requests that were ready in one
 * turn of the HTTP thread's loop): one read snapshot, each request detected on its own, ONE write
 * transaction for all their records and learned values (embedded: thread-embedded.ts `together`),
 * then all the answers, every sync answer's bytes moved in one transfer list. An answer leaves only
 * with the batch, so after its own writes are committed; a request that fails (a bad body, a run
 * that throws) answers its error alone. The cluster engine writes each request's record on its own
 * (a conditional write on its revision): the batch runs them side by side, as separate tasks ran.
 */
import { threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { withRequestId } from '../log.js';
import type { Versions } from '../learned/cache.js';
import type { DetectResult } from '../schemas/detect-outcome.js';
import type { BatchAnswer, DetectBatch, DetectTask, TaskContext } from './task.js';
import { answered, failed, outcome } from './detect.js';
import { threadState, type Maybe, type ThreadState } from './thread-state.js';
import { Later } from './later.js';
import type { DetectOutcome } from '../schemas/detect-outcome.js';

/** The contexts this worker holds, by version: the newest few (a batch in flight may name the one before). */
const contexts = new Map<number, TaskContext>();
const KEEP = 4;

export function detectBatch(versions: Versions, single: (task: DetectTask) => Maybe<DetectResult>): (batch: DetectBatch) => Maybe<BatchAnswer<DetectResult>> {
  // Named: bench:instructions finds the batch by this name.
  return function detectionBatch(batch) {
    const ctx = batch.ctx ?? contexts.get(batch.v);
    if (!ctx) {
      // The bodies go back (they were moved here) with the request to send the context again.
      const bodies = batch.items.map((i) => i.body);
      return move({ [transferableSymbol]: bodies.map((b) => b.buffer), [valueSymbol]: { thread: threadId, v: batch.v, missing: true, bodies } }) as unknown as BatchAnswer<DetectResult>;
    }
    if (batch.ctx && !contexts.has(batch.v)) {
      contexts.set(batch.v, batch.ctx);
      for (const v of contexts.keys()) if (contexts.size > KEEP) contexts.delete(v);
    }
    const tasks = batch.items.map((i): DetectTask => ({ body: i.body, gzip: i.gzip, sync: i.sync, app: batch.apps[i.app], store: ctx.store, dataDir: ctx.dataDir, state: ctx.state, now: i.now, requestId: i.requestId }));
    const results = runAll(tasks, versions, single);
    const pack = (rs: DetectResult[]): BatchAnswer<DetectResult> => {
      const buffers = rs.flatMap((r) => ('response' in r ? [r.response.buffer as ArrayBuffer] : []));
      const answer = { thread: threadId, v: batch.v, results: rs };
      // Piscina moves the sync answers' bytes (one transfer list) instead of cloning them.
      return buffers.length ? (move({ [transferableSymbol]: buffers, [valueSymbol]: answer }) as unknown as BatchAnswer<DetectResult>) : answer;
    };
    return results.some((r) => r instanceof Promise) ? Promise.all(results).then(pack) : pack(results as DetectResult[]);
  };
}

function runAll(tasks: DetectTask[], versions: Versions, single: (task: DetectTask) => Maybe<DetectResult>): Array<Maybe<DetectResult>> {
  let t: Maybe<ThreadState>;
  try {
    // Once a batch: the thread's read snapshot renewed once for all its requests.
    t = threadState(tasks[0], versions);
  } catch (err) {
    const e = failed(err);
    return tasks.map(() => e);
  }
  // The cluster (or an engine without batches): each request as a task of its own, side by side;
  // a sync answer comes back wrapped to be moved (detect.ts settle): the batch moves its bytes itself.
  // The per-task path opens (or fails to open) the thread's state again itself: this promise's
  // rejection is answered there, and left unhandled here it would kill the worker and turn every
  // request it held into a 500.
  if (t instanceof Promise) t.catch(() => undefined);
  if (t instanceof Promise || !t.together) return tasks.map((task) => { const r = single(task); return r instanceof Promise ? r.then(unwrap) : unwrap(r); });
  const state = t, together = t.together.bind(t);
  const outs = together(() => tasks.map((task) => (task.requestId ? withRequestId(task.requestId, () => one(task, state)) : one(task, state))));
  // Settled by the batch's write: each answer (or its own failure) is there now.
  return outs.map((o) => (Later.is(o) ? (o as Later<DetectResult>).get() : o));
}

function one(task: DetectTask, t: ThreadState): Later<DetectResult> | Maybe<DetectResult> {
  try {
    const out = outcome(task, t);
    if (out instanceof Promise) return out.then((o) => answered(task, o), failed);
    return Later.is(out) ? (out as Later<DetectOutcome>).map((o) => answered(task, o), failed) : answered(task, out);
  } catch (err) {
    return failed(err);
  }
}

const unwrap = (r: DetectResult): DetectResult => (valueSymbol in r ? (r as unknown as Record<symbol, DetectResult>)[valueSymbol] : r);
