/**
 * An operator's explanation of a detect body (issue 19), run in a detection worker like the
 * request itself: inflate, parse and validate as /v1/detect does, then detect/explain against the
 * same venue store, user history, learned tables and beacons as a detection through this node,
 * in either engine (contract §8), storing nothing. Geofences and delivery are left out: an
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
import { explainDetect, type Explanation, type ValidBody } from '../detect/explain/explain.js';
import { openUserStore, type UserStore } from '../users/store.js';
import { userOf } from '../users/identity.js';
import { beaconView } from '../beacons/lookup.js';
import type { Versions } from '../learned/cache.js';
import type { DetectTask } from './task.js';
import { clusterThread, isNew } from './detect-cluster.js';

export type ExplainTask = Omit<DetectTask, 'sync'>;
export type ExplainResult = { ok: true; explanation: Explanation } | { ok: false; error: ErrorBody['error'] };

export function explainTask(versions: Versions): (task: ExplainTask) => ExplainResult | Promise<ExplainResult> {
  const userStores = new Map<string, UserStore>();
  const embedded = (task: ExplainTask, valid: ValidBody): Explanation => {
    let users = userStores.get(task.dataDir);
    if (!users) userStores.set(task.dataDir, (users = openUserStore(task.dataDir, { noSync: true, versions })));
    users.fresh();
    // The beacons a detection reads (pipeline/detect.ts): without them a registered beacon ranks differently.
    return explainDetect(valid, { ...context(task), users, beacons: beaconView(task.dataDir, task.app.app_key) });
  };
  return (task) => {
    try {
      const valid = validateDetect(parseJson(task.gzip ? inflateSync(task.body) : task.body), task.now);
      if (task.state?.kind === 'nats') return clustered(task, task.state.servers, valid).then(explained, failed);
      return explained(embedded(task, valid));
    } catch (err) {
      return failed(err);
    }
  };
}

/** Cluster mode: the user's stored record and this thread's learned values and beacons, as detect-cluster.ts reads them. */
async function clustered(task: ExplainTask, servers: readonly string[], valid: ValidBody): Promise<Explanation> {
  const { kit, view, beacons } = await clusterThread(servers);
  const app = task.app.app_key;
  const who = userOf(valid.body);
  const rec = who === null ? undefined : await kit.users.read(app, who);
  const ctx: DetectContext = { ...context(task), users: view, beacons: beacons.view(app) };
  // explainDetect writes nothing through the view (read-only-users.ts); what the run collected is dropped.
  return view.run(app, who, rec && !isNew(rec) ? rec : undefined, () => explainDetect(valid, ctx)).result;
}

const context = (task: ExplainTask): Omit<DetectContext, 'users'> => ({
  venues: openStore(task.store), estimateAddress, app: task.app, now: task.now, params: DEFAULT_PARAMS,
});

const explained = (explanation: Explanation): ExplainResult => ({ ok: true, explanation });

function failed(err: unknown): ExplainResult {
  const e = asDwellError(err);
  if (e.code === 'internal') log.error('explain failed', { error: String((err as Error)?.stack ?? err) });
  return { ok: false, error: e.toJSON().error };
}
