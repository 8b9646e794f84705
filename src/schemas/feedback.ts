/**
 * Visit feedback (contract §10): what the app learned of where its user really was. One schema
 * for the server's validation, the API document and the client's types.
 */
import { Type, type Static } from '@sinclair/typebox';

const UserId = Type.String({ maxLength: 256, description: 'as sent with the visit; an empty advertising_id counts as absent' });

export const VisitFeedback = Type.Object({
  advertising_id: Type.Optional(UserId),
  user_id: Type.Optional(UserId),
  type: Type.Union([Type.Literal('confirm'), Type.Literal('wrong_venue'), Type.Literal('not_a_stop')], {
    description: '`confirm`: the answered place_id is right; `wrong_venue`: the user was at `venue_id`; `not_a_stop`: no stop at all',
  }),
  venue_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'with `wrong_venue` only: a venue of the served store' })),
}, { additionalProperties: false, description: 'the user (advertising_id, else user_id, as in the detection request) and what they said' });

export const FeedbackAnswer = Type.Object({ result: Type.Literal('SUCCESS') });

export type VisitFeedback = Static<typeof VisitFeedback>;
export type FeedbackAnswer = Static<typeof FeedbackAnswer>;
