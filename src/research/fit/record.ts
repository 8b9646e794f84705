/**
 * Labelled rankings for the refit: each stay's candidates with the ranking's named terms, as the
 * rank recorder (detect/rank-recorder.ts) hears them, and which outcome was true. A row per
 * candidate, row 0 for "none of these"; a column per factor. The terms are recorded as added,
 * weights included, so a coefficient of 1 / temperature on every column is the model that ran.
 */
import type { RankRecorder } from '../../detect/rank-recorder.js';
import type { Venue } from '../../detect/venue.js';

/** The factors rank.ts notes, in column order. A term under any other name is an error: the fit must see the whole score. */
export const FACTORS = ['distance', 'popularity', 'counted', 'hour_of_week', 'dwell', 'indoor', 'type', 'wifi_names',
  'wifi_networks', 'history', 'history_labels', 'beacons', 'beacons_learned', 'none'] as const;
export type Factor = (typeof FACTORS)[number];
export const F = FACTORS.length;
const COLUMN = new Map<string, number>(FACTORS.map((f, k) => [f, k]));

export interface LabelledStay {
  /** (candidates + 1) × F terms, row 0 "none of these". */
  x: Float64Array;
  rows: number;
  /** The true row: 0 when the true venue is none of the candidates. */
  y: number;
  /** The stay's centre error (m), for interactions that depend on it. */
  sigma: number;
  /** The temperature the terms were ranked at. */
  temperature: number;
  /** Row ids (row 0: ''), for a labelled-rankings file. */
  ids: string[];
}

/** Hears every ranking of a detection, and keeps each as an unlabelled stay until labelled. */
export class FitRecorder implements RankRecorder {
  readonly rankings: LabelledStay[] = [];
  private cur: { x: number[]; ids: string[]; sigma: number; temperature: number; scores: number[] } | null = null;

  begin(q: { sigma: number }, temperature: number): void {
    this.cur = { x: new Array(F).fill(0), ids: [''], sigma: q.sigma, temperature, scores: [0] };
    this.rankings.push({ x: new Float64Array(0), rows: 0, y: -1, sigma: q.sigma, temperature, ids: [] });
  }

  factor(i: number, factor: string, value: number): void {
    const k = COLUMN.get(factor);
    if (k === undefined) throw new Error(`rank.ts noted a factor the refit does not know: ${factor} (add it to FACTORS)`);
    const c = this.cur!, at = (i + 1) * F + k;
    while (c.x.length < at + 1) c.x.push(0);
    c.x[at] += value;
  }

  scored(i: number, venue: Venue, _distance: number, _footprint: number, score: number): void {
    const c = this.cur!;
    c.ids[i + 1] = venue.id;
    c.scores[i + 1] = score;
  }

  scoredNone(score: number): void { this.cur!.scores[0] = score; }

  ranked(): void {
    const c = this.cur!, rows = c.ids.length;
    const x = new Float64Array(rows * F);
    for (let j = 0; j < c.x.length && j < x.length; j++) x[j] = c.x[j];
    for (let r = 0; r < rows; r++) {
      let sum = 0;
      for (let k = 0; k < F; k++) sum += x[r * F + k];
      // A term added without noted() would be missing from the fit: refuse rather than fit a part of the score.
      if (Math.abs(sum - c.scores[r]) > 1e-6 * Math.max(1, Math.abs(c.scores[r]))) throw new Error(`ranking row ${r}: noted terms sum to ${sum}, the score is ${c.scores[r]}`);
    }
    Object.assign(this.rankings[this.rankings.length - 1], { x, rows, ids: c.ids });
    this.cur = null;
  }
}

/** Labels a stay by its true venue id (null or absent from the candidates: row 0, "none of these"). */
export function label(s: LabelledStay, venueId: string | null): LabelledStay {
  const at = venueId ? s.ids.indexOf(venueId) : -1;
  s.y = at > 0 ? at : 0;
  return s;
}
