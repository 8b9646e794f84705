/**
 * An operator's explanation of a detect body (issue 19), run in a detection worker like the
 * request itself: inflate, parse and validate as /v1/detect does, then detect/explain against the
 * same venue store and user state, storing nothing. Geofences and delivery are left out: an
 * explanation is about the venues.
 */
import { asDwellError, type ErrorBody } from '../errors.js';
import { log } from '../log.js';
import { inflateSync } from '../http/body.js';
import { parseJson } from '../http/json-body.js';
import { validateDetect } from '../schemas/validate-detect.js';
import { openStore } from '../venues/store.js';
import { estimateAddress } from '../venues/address.js';
import { DEFAULT_PARAMS, type DetectContext } from '../detect/index.js';
import { explainDetect, type Explanation } from '../detect/explain/explain.js';
import { openUserStore, type UserStore } from '../users/store.js';
import type { Versions } from '../learned/cache.js';
import type { DetectTask } from './task.js';

export type ExplainTask = Omit<DetectTask, 'sync'>;
export type ExplainResult = { ok: true; explanation: Explanation } | { ok: false; error: ErrorBody['error'] };

export function explainTask(versions: Versions): (task: ExplainTask) => ExplainResult {
  const userStores = new Map<string, UserStore>();
  return (task) => {
    try {
      const valid = validateDetect(parseJson(task.gzip ? inflateSync(task.body) : task.body), task.now);
      let users = userStores.get(task.dataDir);
      if (!users) userStores.set(task.dataDir, (users = openUserStore(task.dataDir, { noSync: true, versions })));
      users.fresh();
      const ctx: DetectContext = { venues: openStore(task.store), users, estimateAddress, app: task.app, now: task.now, params: DEFAULT_PARAMS };
      return { ok: true, explanation: explainDetect(valid, ctx) };
    } catch (err) {
      const e = asDwellError(err);
      if (e.code === 'internal') log.error('explain failed', { error: String((err as Error)?.stack ?? err) });
      return { ok: false, error: e.toJSON().error };
    }
  };
}
