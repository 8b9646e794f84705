/**
 * Collects what one detection's rankings said (rank-recorder.ts): per ranking, the stay's
 * evidence and, per answered candidate, each factor's contribution to its score. Factors are
 * listed as the ranking added them; a score the noted factors do not add up to (a term added
 * without noted()) shows the difference as `unnoted`, so an explanation always sums to its score.
 */
import type { Venue } from '../venue.js';
import type { RankRecorder } from '../rank-recorder.js';

export interface Factor { factor: string; value: number }

export interface ExplainedCandidate {
  id: string; name: string; category: string; sub_category: string;
  lat: number; long: number;
  /** From the stay's centre to the venue, and the footprint the GPS likelihood used, metres. */
  distance_m: number; footprint_m: number;
  /** The log-linear score in nats: the sum of `factors`. */
  score: number;
  /** As ranked, before the answer rounds it down to 4 decimals. */
  probability: number;
  factors: Factor[];
}

export interface Ranking {
  centre: { lat: number; long: number; sigma_m: number };
  dwell_s: number; hour_of_week: number;
  /** How likely the fixes were taken indoors; null when unknown. */
  indoor: number | null;
  /** Probabilities are softmax(score / temperature) over the candidates and "none". */
  temperature: number;
  /** Venues scored (the nearest, up to rank.ts MAX_CANDIDATES); `candidates` are those answered. */
  scored: number;
  none: { score: number; probability: number; factors: Factor[] };
  candidates: ExplainedCandidate[];
}

interface Pending { venue: Venue; distance: number; footprint: number; score: number; factors: Factor[] }

/** Tolerance of the sum check: the ranking adds the same terms in another grouping. */
const EPS = 1e-9;

function add(factors: Factor[], factor: string, value: number): void {
  const had = factors.find((f) => f.factor === factor);
  if (had) had.value += value;
  else factors.push({ factor, value });
}

function closed(factors: Factor[], score: number): Factor[] {
  const rest = score - factors.reduce((s, f) => s + f.value, 0);
  if (Math.abs(rest) > EPS) factors.push({ factor: 'unnoted', value: rest });
  return factors;
}

export class ExplainCollector implements RankRecorder {
  readonly rankings: Ranking[] = [];
  private open: Ranking | null = null;
  private factors = new Map<number, Factor[]>();
  private pending = new Map<number, Pending>();
  private byVenue = new Map<Venue, Pending>();

  begin(q: { lat: number; lon: number; sigma: number; dwellS: number; hourOfWeek: number; indoor: number }, temperature: number): void {
    this.factors.clear(); this.pending.clear(); this.byVenue.clear();
    this.open = {
      centre: { lat: q.lat, long: q.lon, sigma_m: q.sigma }, dwell_s: q.dwellS, hour_of_week: q.hourOfWeek,
      indoor: Number.isNaN(q.indoor) ? null : q.indoor, temperature, scored: 0,
      none: { score: 0, probability: 1, factors: [] }, candidates: [],
    };
    this.rankings.push(this.open);
  }

  factor(i: number, factor: string, value: number): void {
    let f = this.factors.get(i);
    if (!f) this.factors.set(i, (f = []));
    add(f, factor, value);
  }

  scored(i: number, venue: Venue, distance: number, footprint: number, score: number): void {
    const p: Pending = { venue, distance, footprint, score, factors: this.factors.get(i) ?? [] };
    this.factors.delete(i);
    this.pending.set(i, p);
    this.byVenue.set(venue, p);
  }

  scoredNone(score: number): void {
    this.open!.none.score = score;
    this.open!.none.factors = closed(this.factors.get(-1) ?? [], score);
    this.factors.delete(-1);
  }

  ranked(venues: ReadonlyArray<{ venue: Venue; probability: number }>, none: number): void {
    const r = this.open!;
    r.scored = this.pending.size;
    r.none.probability = none;
    for (const { venue: v, probability } of venues) {
      const p = this.byVenue.get(v)!;
      r.candidates.push({
        id: v.id, name: v.name ?? '', category: v.category ?? '', sub_category: v.sub_category ?? '', lat: v.lat, long: v.lon,
        distance_m: p.distance, footprint_m: p.footprint, score: p.score, probability, factors: closed(p.factors, p.score),
      });
    }
    this.open = null;
  }
}
