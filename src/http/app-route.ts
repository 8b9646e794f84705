/**
 * What every signed customer route under /v2/apps/<app_key>/ shares (contract §1): its handler's
 * shape, called after the signature was checked with the signing app's record, and the rule that
 * the app in the path is the app that signed.
 */
import { DwellError } from '../errors.js';
import type { AppRecord } from '../schemas/app.js';
import type { RawBody } from './body.js';
import type { Exchange, Reply } from './reply.js';

export type AppHandler = (params: Record<string, string>, ex: Exchange, app: AppRecord, raw: RawBody) => Promise<Reply>;

/** The path's app key must be the signing app's: another app's data is not reachable with this signature (403). */
export function bound(p: Record<string, string>, app: AppRecord): void {
  if (p.app_key !== app.app_key) {
    throw new DwellError('forbidden', `the app key in the path must be the signing app's (${app.app_key}), got ${JSON.stringify(p.app_key)}`);
  }
}
