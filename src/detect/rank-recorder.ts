/**
 * What an explanation hears from the ranking (rank.ts): each term added to each candidate's
 * score, as it is added. Detection runs with no recorder, and every note is then the identity;
 * an explanation (explain/) runs the very same ranking inside `recording()`. A new term in
 * rank.ts wrapped in `noted(rec, i, 'name', …)` shows up in explanations under that name; one
 * that is not still shows, as the difference between the score and its noted terms.
 */
import type { Venue } from './venue.js';

/** The terms of what a stay says of a kind of place (rank.ts kindLog), in the order kept per kind. */
export const KIND_PARTS = ['hour_of_week', 'dwell', 'indoor'] as const;

export interface RankRecorder {
  /** A ranking starts: the stay's evidence as ranked, and the softmax temperature. */
  begin(q: { lat: number; lon: number; sigma: number; dwellS: number; hourOfWeek: number; indoor: number }, temperature: number): void;
  /** Candidate `i` (−1: "none of these") gained `value` nats from `factor`. */
  factor(i: number, factor: string, value: number): void;
  /** Candidate `i`'s score is complete: the exact value the softmax is given. */
  scored(i: number, venue: Venue, distance: number, footprint: number, score: number): void;
  /** The "none of these" outcome's score. */
  scoredNone(score: number): void;
  /** The ranking's answer: the candidates kept, best first, and the probability of none. */
  ranked(venues: ReadonlyArray<{ venue: Venue; probability: number }>, none: number): void;
}

let current: RankRecorder | undefined;

/** The recorder of the ranking running now, if it is being explained. */
export const recorder = (): RankRecorder | undefined => current;

/** Runs `fn` (synchronous: a detection is) with every ranking it makes reporting to `rec`. */
export function recording<T>(rec: RankRecorder, fn: () => T): T {
  const before = current;
  current = rec;
  try {
    return fn();
  } finally {
    current = before;
  }
}

/** A term of candidate `i`'s score, passed through; noted when explaining. */
export function noted(rec: RankRecorder | undefined, i: number, factor: string, value: number): number {
  if (rec) rec.factor(i, factor, value);
  return value;
}
