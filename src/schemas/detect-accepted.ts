/** Contract §2: a postback or bucket app's answer to a detection, once its triggers are durably queued. */
import { Type, type Static } from '@sinclair/typebox';

export const DetectAccepted = Type.Object({
  result: Type.Literal('SUCCESS'),
  request_id: Type.String({ description: "the caller's request_id, or one generated" }),
});

export type DetectAccepted = Static<typeof DetectAccepted>;
