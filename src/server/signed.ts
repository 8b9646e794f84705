/**
 * The signed-request walk shared by every customer endpoint (contract §1): headers and clock
 * first, then the raw body under its cap, then the signature over those exact bytes, then the
 * replay check and the app's rate limit. Only a request that passes them all reaches its handler.
 *
 * The rate limit is spent only by correctly signed requests: anyone can learn an app key, and
 * unsigned requests must not use up the app's allowance. It is taken after the replay check
 * (a replayed copy spends nothing) and before the signature is recorded (a request refused 429
 * may be sent again as it is).
 */
import type { AppRegistry } from '../apps/registry.js';
import type { AppRecord } from '../schemas/app.js';
import { checkHeaders, checkSignature } from './auth.js';
import { stringToSign } from '../signing.js';
import { emptyBody, MAX_SENT_BYTES, readBody, type RawBody } from '../http/body.js';
import type { Exchange, Reply } from '../http/reply.js';
import type { RateLimiter } from './rate-limit.js';
import type { Replays } from './replays.js';
import { DwellError } from '../errors.js';

export interface SignedDeps { apps: AppRegistry; replays: Replays; limiter: RateLimiter }

export type SignedHandler = (ex: Exchange, app: AppRecord, body: RawBody) => Promise<Reply>;

/**
 * Must be called synchronously from the uWS handler: the body's reader is attached here.
 * `limit`: the body as sent, bytes (a bulk import takes more than a detection's 1 MiB).
 */
export function handleSigned(ex: Exchange, deps: SignedDeps, before: ((ex: Exchange) => void) | null, handler: SignedHandler, limit = MAX_SENT_BYTES): void {
  let app: AppRecord;
  let bodyPromise: Promise<RawBody>;
  // Reads change nothing: the same GET twice is answered twice (contract §1).
  const read = ex.method === 'GET' || ex.method === 'HEAD';
  const headers = { appKey: ex.header('x-app-key'), timestamp: ex.header('x-timestamp'), signature: ex.header('x-signature') };
  try {
    app = checkHeaders(headers, deps.apps);
    before?.(ex);
    bodyPromise = read ? Promise.resolve(emptyBody()) : readBody(ex, limit);
  } catch (err) {
    // An app created on another node may not have reached this one's watch yet (never embedded).
    if ((err as { code?: string }).code === 'unknown_app' && deps.apps.mayExistElsewhere(headers.appKey)) return late(ex, deps, before, handler, read, limit);
    // Refused before the body was read: answered now, the rest of the body discarded.
    ex.fail(err);
    return;
  }
  run(ex, deps, handler, read, app, bodyPromise);
}

/**
 * The app is unknown here: the body is read (its reader must be attached now, under the route's
 * cap) while the cluster is asked. `before` (the media type) runs first, so a body it refuses is
 * never read; its refusal is answered only once the app is known, so an unknown app is told 401
 * as on a node that has no such app, whatever else is wrong with the request.
 */
function late(ex: Exchange, deps: SignedDeps, before: ((ex: Exchange) => void) | null, handler: SignedHandler, read: boolean, limit: number): void {
  let refused: unknown;
  let bodyPromise: Promise<RawBody> = Promise.resolve(emptyBody());
  try {
    before?.(ex);
  } catch (err) {
    refused = err ?? new Error('refused');
  }
  try {
    if (!read && refused === undefined) bodyPromise = readBody(ex, limit);
  } catch (err) {
    ex.fail(err);
    return;
  }
  bodyPromise.catch(() => undefined);
  deps.apps.fetch(ex.header('x-app-key')).then(() => {
    const app = checkHeaders({ appKey: ex.header('x-app-key'), timestamp: ex.header('x-timestamp'), signature: ex.header('x-signature') }, deps.apps);
    if (refused !== undefined) throw refused;
    run(ex, deps, handler, read, app, bodyPromise);
  }).catch((err) => ex.fail(err));
}

function run(ex: Exchange, deps: SignedDeps, handler: SignedHandler, read: boolean, app: AppRecord, bodyPromise: Promise<RawBody>): void {
  bodyPromise
    .then(async (body) => {
      const signature = ex.header('x-signature');
      checkSignature(deps.apps.liveSecrets(app), stringToSign(ex.header('x-timestamp'), ex.method, ex.pathAndQuery, body.sha256), signature);
      if (!read) deps.replays.check(app.app_key, signature);
      deps.limiter.take(app.app_key);
      // Counted before the app is looked up again: an app deleted from here on waits for this
      // request (apps/in-flight.ts); one deleted while the body was read is refused.
      deps.apps.inFlight.enter(app.app_key, ex);
      try {
        if (!deps.apps.get(app.app_key)) throw new DwellError('unknown_app', 'unknown app key');
        // Stored before anything is acted upon, so a restart cannot make the request new again.
        if (!read) await deps.replays.record(app.app_key, signature, Number(ex.header('x-timestamp')));
        return await handler(ex, app, body);
      } finally {
        deps.apps.inFlight.leave(app.app_key, ex);
      }
    })
    .then((reply) => ex.send(reply), (err) => ex.fail(err));
}
