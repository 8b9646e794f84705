/**
 * What the explorer's admin calls answer (docs/operating.md "Explorer"): recent detections, an explanation
 * of a detection, a venue search. The server builds these in src/recent/, src/detect/explain/
 * and src/ui/; the schemas describe them for the API document, so a generated client has types.
 */
import { Type } from '@sinclair/typebox';
import { SyncItem } from './visit.js';

const Tally = Type.Object({ venue: Type.Integer({ minimum: 0 }), transit: Type.Integer({ minimum: 0 }), no_venue: Type.Integer({ minimum: 0 }) });

export const RecentSummary = Type.Object({
  id: Type.String({ description: 'the id to read it by (`GET …/recent/{id}`)' }),
  at: Type.String({ description: 'when it was answered, ISO 8601' }),
  user: Type.Union([Type.String(), Type.Null()], { description: 'the user it was about (advertising id, else user id), null when anonymous' }),
  kind: Type.Union([Type.Literal('structured'), Type.Literal('unstructured')]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  tally: Tally,
});

export const RecentDetail = Type.Object({
  ...RecentSummary.properties,
  request: Type.Object({}, { additionalProperties: true, description: 'the request body as sent, decompressed and parsed' }),
  answer: Type.Object({}, { additionalProperties: true, description: 'what was answered: `data` (the visits) and `geofence_events`' }),
});

export const RecentList = Type.Object({
  app_key: Type.String(),
  kept: Type.Boolean({ description: "whether this app's detections are kept at all (DWELL_RECENT_COUNT, DWELL_RECENT_OPT_OUT)" }),
  count: Type.Integer({ minimum: 0 }),
  detections: Type.Array(RecentSummary, { description: 'newest first, without their bodies' }),
});

const Factor = Type.Object({ factor: Type.String(), value: Type.Number({ description: 'its contribution to the score, nats' }) });

const ExplainedCandidate = Type.Object({
  id: Type.String(), name: Type.String(), category: Type.String(), sub_category: Type.String(),
  lat: Type.Number(), long: Type.Number(),
  distance_m: Type.Number({ description: "from the stay's centre to the venue" }),
  footprint_m: Type.Number({ description: 'the footprint the GPS likelihood used' }),
  score: Type.Number({ description: 'log-linear score in nats: the sum of `factors`' }),
  probability: Type.Number({ minimum: 0, maximum: 1 }),
  factors: Type.Array(Factor),
});

export const Ranking = Type.Object({
  centre: Type.Object({ lat: Type.Number(), long: Type.Number(), sigma_m: Type.Number() }),
  dwell_s: Type.Number(),
  hour_of_week: Type.Integer(),
  indoor: Type.Union([Type.Number(), Type.Null()], { description: 'how likely the fixes were taken indoors; null when unknown' }),
  temperature: Type.Number(),
  scored: Type.Integer({ minimum: 0, description: 'venues scored; `candidates` are those answered' }),
  none: Type.Object({ score: Type.Number(), probability: Type.Number(), factors: Type.Array(Factor) }),
  candidates: Type.Array(ExplainedCandidate),
});

const SignalAt = Type.Object({
  signal: Type.Integer({ minimum: -1, description: "the request's signals counted in order (a structured request's events one after the other); -1: the position Dwell held from before" }),
  lat: Type.Number(), long: Type.Number(), accuracy: Type.Number(), timestamp: Type.String(),
});

/** Contract §12: what one flag rests on (src/integrity/why.ts). */
export const IntegrityEvidence = Type.Union([
  Type.Object({ flag: Type.Literal('jumped'), from: SignalAt, to: SignalAt, distance_m: Type.Number(), seconds: Type.Number(), speed_m_s: Type.Union([Type.Number(), Type.Null()], { description: 'beyond both accuracies; null when the two are at the same time' }) }),
  Type.Object({ flag: Type.Literal('wifi_mismatch'), signal: Type.Integer(), bssid: Type.String(), position: SignalAt, distance_m: Type.Number(),
    learned_at: Type.Object({ lat: Type.Number(), long: Type.Number(), stays: Type.Integer(), users: Type.Integer({ description: 'distinct users remembered as having taught it (up to 4)' }) }, { description: "where the app's learned tables place the network" }) }),
  Type.Object({ flag: Type.Union([Type.Literal('mocked'), Type.Literal('inaccurate')]), signal: Type.Integer(), position: SignalAt }),
  Type.Object({ flag: Type.Literal('clock_skew'), signal: Type.Integer(), timestamp: Type.String(), ahead_s: Type.Number() }),
]);

export const Explanation = Type.Object({
  app_key: Type.String(),
  kind: Type.Union([Type.Literal('structured'), Type.Literal('unstructured')]),
  data: Type.Array(SyncItem, { description: 'what /v1/detect would answer for this body now' }),
  rankings: Type.Array(Type.Union([Ranking, Type.Null()]), { description: 'parallel to `data`: null for a transit or an unlocated visit' }),
  integrity: Type.Array(IntegrityEvidence, { description: "contract §12: each flagged signal's evidence (a position behind a flag that an inaccurate one alone does not raise is listed too)" }),
});

export const VenueFound = Type.Object({
  id: Type.String(), name: Type.String(), category: Type.String(), sub_category: Type.String(),
  lat: Type.Number(), long: Type.Number(), radius_m: Type.Number(), popularity: Type.Number(),
  distance_m: Type.Optional(Type.Number({ description: 'from the centre, when one was given' })),
});

export const VenueSearch = Type.Object({
  store: Type.String({ description: 'the id of the venue store served' }),
  venues: Type.Array(VenueFound),
  scanned: Type.Union([Type.Literal('near'), Type.Literal('first records'), Type.Literal('all')], { description: 'what was searched' }),
});
