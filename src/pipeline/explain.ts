/**
 * An operator's explanation of a detect body (issue 19), run in a detection worker like the
 * request itself and through the same thread state (thread-state.ts): inflate, parse and validate
 * as /v1/detect does, then detect/explain against the same venue store, user history, learned
 * tables and beacons as a detection through this node, in either engine (contract §8), storing
 * nothing. Geofences and delivery are left out: an explanation is about the venues.
 */
import { asDwellError, type ErrorBody } from '../errors.js';
import { log } from '../log.js';
import { inflateSync } from '../http/body.js';
import { parseJson } from '../http/json-body.js';
import { validateDetect } from '../schemas/validate-detect.js';
import { openStore } from '../venues/store.js';
import { estimateAddress } from '../venues/address.js';
import { DEFAULT_PARAMS } from '../detect/index.js';
import { explainDetect, type Explanation, type ValidBody } from '../detect/explain/explain.js';
import { userOf } from '../users/identity.js';
import type { Versions } from '../learned/cache.js';
import type { DetectTask } from './task.js';
import { threadState, type Maybe, type ThreadState } from './thread-state.js';
import { hearsBeacons } from './thread-types.js';

export type ExplainTask = Omit<DetectTask, 'sync'>;
export type ExplainResult = { ok: true; explanation: Explanation } | { ok: false; error: ErrorBody['error'] };

export function explainTask(versions: Versions): (task: ExplainTask) => Maybe<ExplainResult> {
  return (task) => {
    try {
      const valid = validateDetect(parseJson(task.gzip ? inflateSync(task.body) : task.body), task.now);
      const t = threadState(task, versions);
      const out = t instanceof Promise ? t.then((s) => explain(task, s, valid)) : explain(task, t, valid);
      return out instanceof Promise ? out.then(explained, failed) : explained(out);
    } catch (err) {
      return failed(err);
    }
  };
}

/** explainDetect writes nothing through the store (read-only-users.ts); `peek` commits nothing either. */
function explain(task: ExplainTask, t: ThreadState, valid: ValidBody): Maybe<Explanation> {
  const app = task.app.app_key;
  const venues = openStore(task.store);
  // Beacons read as the run starts, after the cluster's copies caught up (thread-cluster.ts).
  return t.peek(app, userOf(valid.body), () => explainDetect(valid, {
    venues, users: t.users, estimateAddress, app: task.app, now: task.now, params: DEFAULT_PARAMS, beacons: t.beacons(app),
  }), hearsBeacons(valid.body));
}

const explained = (explanation: Explanation): ExplainResult => ({ ok: true, explanation });

function failed(err: unknown): ExplainResult {
  const e = asDwellError(err);
  if (e.code === 'internal') log.error('explain failed', { error: String((err as Error)?.stack ?? err) });
  return { ok: false, error: e.toJSON().error };
}
