/** The test clock's admin call (POST /admin/clock): how far to move the server's time, and the time it then reads. */
import { Type, type Static } from '@sinclair/typebox';

export const AdvanceClock = Type.Object({
  // Ten years: far past any retention, TTL or backoff a test waits for, and far from overflowing a date.
  advance_s: Type.Number({ minimum: 0, maximum: 315_360_000, description: 'seconds to move forward (fractions allowed)' }),
}, { additionalProperties: false });
export type AdvanceClock = Static<typeof AdvanceClock>;

export const ClockTime = Type.Object({
  now: Type.String({ description: 'the server\'s time after the move, ISO 8601 UTC' }),
  now_ms: Type.Number({ description: 'the same, ms since the epoch' }),
  offset_s: Type.Number({ description: 'how far the server\'s time is ahead of the real time, seconds' }),
});
