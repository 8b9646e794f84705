/**
 * `POST /v2/apps/<app_key>/visits/<visit_id>/feedback` (contract §10), signed like every other
 * route; the app in the path must be the signer (403). The visit must be one answered to this
 * user in this app and still in their history: anything else, another app's visit included, is
 * 404. A `venue_id` is checked against the served store (400 at /venue_id).
 */
import { DwellError, invalid } from '../errors.js';
import { readJson } from '../http/json-body.js';
import type { Exchange, Reply } from '../http/reply.js';
import type { RawBody } from '../http/body.js';
import type { AppRecord } from '../schemas/app.js';
import { checkSchema } from '../schemas/check.js';
import { VisitFeedback } from '../schemas/feedback.js';
import { userOf } from '../users/identity.js';
import { openStore, type StoreHandle, type VenueStore } from '../venues/store.js';
import { DEFAULT_PARAMS } from '../detect/params.js';
import { mergingAtOnce, teachKnownVenue } from '../detect/known-venue.js';
import { applyFeedback, type Feedback } from './apply.js';
import { noVisit, type RecordStepper } from './record-step.js';
import { clock } from '../time/clock.js';

export type FeedbackHandler = (params: Record<string, string>, ex: Exchange, app: AppRecord, raw: RawBody) => Promise<Reply>;

const PARAMS = mergingAtOnce(DEFAULT_PARAMS);

/** The input's rules beyond its schema: who, and `venue_id` with `wrong_venue` only. */
function feedbackIn(body: VisitFeedback): { user: string; fb: Feedback } {
  const user = userOf(body);
  if (!user) throw invalid('', 'the body names the user: advertising_id (as sent with the visit), else user_id');
  if (body.type === 'wrong_venue' && !body.venue_id) throw invalid('/venue_id', 'venue_id: wrong_venue needs the venue the user was really at, got nothing');
  if (body.type !== 'wrong_venue' && body.venue_id !== undefined) throw invalid('/venue_id', `venue_id: only with wrong_venue, got it with ${body.type}`);
  return { user, fb: { type: body.type, venue_id: body.venue_id } };
}

function venueOf(store: VenueStore, id: string) {
  const i = store.indexOf(id);
  return i === undefined ? undefined : store.get(i);
}

export function feedbackRoutes(deps: { stepper: RecordStepper; venues: () => StoreHandle | null }): Array<[string, string, FeedbackHandler]> {
  return [
    ['POST', '/v2/apps/:app_key/visits/:visit_id/feedback', async (p, ex, app, raw) => {
      if (p.app_key !== app.app_key) {
        throw new DwellError('forbidden', `the app key in the path must be the signing app's (${app.app_key}), got ${JSON.stringify(p.app_key)}`);
      }
      const { user, fb } = feedbackIn(checkSchema<VisitFeedback>(VisitFeedback, await readJson(ex, raw)));
      const h = deps.venues();
      if (!h) throw new DwellError('unavailable', 'the venue store is still loading', undefined, 1);
      const store = openStore(h);
      if (fb.venue_id !== undefined && !venueOf(store, fb.venue_id)) {
        throw invalid('/venue_id', `venue_id ${JSON.stringify(fb.venue_id)} is not a venue of the served store`);
      }
      await deps.stepper.run(app.app_key, user, (rec, users) => {
        const out = applyFeedback(rec, p.visit_id, fb, clock.now());
        if (!out) throw noVisit(p.visit_id);
        const venue = out.teach ? venueOf(store, out.venueId) : undefined;
        return venue ? teachKnownVenue(out.visit, venue, users, app.app_key, store, PARAMS) : [];
      });
      return { status: 200, body: { result: 'SUCCESS' } };
    }],
  ];
}
