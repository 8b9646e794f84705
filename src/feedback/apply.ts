/**
 * Feedback on one answered visit, applied to the user's record (pure): the venue the user named
 * (or confirmed) becomes the one the history credits with the stay, and the stay's label among
 * the past stays, certain; `not_a_stop` takes the stay out of both. Given again, it replaces the
 * earlier one. Answers null for a visit the record does not hold, and the visit to teach the app's
 * tables from, once per visit (users/answered.ts `t`), so that a user changing their answer cannot
 * count one stay many times.
 */
import { recordPlace, LABELS, type UserRecord } from '../users/records.js';
import { answeredOf, forgetPlaceVisit, labelStay, type AnsweredVisit, type FeedbackType } from '../users/answered.js';
import { forgetPlaces, spanOfAnswered } from '../users/places.js';

export interface Feedback { type: FeedbackType; venue_id?: string }

export interface Applied { visit: AnsweredVisit; venueId: string; teach: boolean }

export function applyFeedback(rec: UserRecord, visitId: string, fb: Feedback, now: number): Applied | null {
  const a = answeredOf(rec, visitId);
  // A visit that did not pass the integrity checks teaches nothing (contract §12): as if never answered.
  if (!a || a.g) return null;
  const target = fb.type === 'not_a_stop' ? '' : fb.type === 'wrong_venue' ? fb.venue_id! : a.r;
  if (a.v !== target) {
    if (a.v) forgetPlaceVisit(rec, a.v, a.s);
    // No stop: nor a night or a working day at home or work (users/places.ts).
    if (a.v && !target) forgetPlaces(rec, spanOfAnswered(a));
    if (target) recordPlace(rec, target, a.i, a.s);
    a.v = target;
  }
  labelStay(rec, a, target || null, LABELS);
  a.f = fb.type === 'wrong_venue' ? { k: fb.type, v: fb.venue_id, at: now } : { k: fb.type, at: now };
  const teach = !!target && !a.t;
  if (teach) a.t = 1;
  return { visit: a, venueId: target, teach };
}
