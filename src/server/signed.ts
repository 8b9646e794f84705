/**
 * The signed-request walk shared by every customer endpoint (contract §1): headers and clock
 * first, then the raw body under its cap, then the signature over those exact bytes, then the
 * replay check. Only a request that passes all four reaches its handler.
 */
import type { AppRegistry } from '../apps/registry.js';
import type { AppRecord } from '../schemas/app.js';
import { checkHeaders, checkSignature, stringToSign, type ReplayCache } from './auth.js';
import { emptyBody, readBody, type RawBody } from './body.js';
import type { Exchange, Reply } from './reply.js';
import type { RateLimiter } from './rate-limit.js';

export interface SignedDeps { apps: AppRegistry; replays: ReplayCache; limiter: RateLimiter }

export type SignedHandler = (ex: Exchange, app: AppRecord, body: RawBody) => Promise<Reply>;

/** Must be called synchronously from the uWS handler: the body's reader is attached here. */
export function handleSigned(ex: Exchange, deps: SignedDeps, before: ((ex: Exchange) => void) | null, handler: SignedHandler): void {
  let app: AppRecord;
  let bodyPromise: Promise<RawBody>;
  try {
    const headers = { appKey: ex.header('x-app-key'), timestamp: ex.header('x-timestamp'), signature: ex.header('x-signature') };
    app = checkHeaders(headers, deps.apps);
    deps.limiter.take(app.app_key);
    before?.(ex);
    const hasBody = ex.method !== 'GET' && ex.method !== 'HEAD';
    bodyPromise = hasBody ? readBody(ex) : Promise.resolve(emptyBody());
  } catch (err) {
    // Refused before the body was read: answered now, the rest of the body discarded.
    ex.fail(err);
    return;
  }
  bodyPromise
    .then(async (body) => {
      const text = stringToSign(ex.header('x-timestamp'), ex.method, ex.pathAndQuery, body.sha256);
      checkSignature(deps.apps.liveSecrets(app), text, ex.header('x-signature'));
      deps.replays.claim(app.app_key, ex.header('x-signature'), Number(ex.header('x-timestamp')));
      return handler(ex, app, body);
    })
    .then((reply) => ex.send(reply), (err) => ex.fail(err));
}
