/**
 * Reads a server's own latency histogram from GET /metrics (Prometheus text format), whatever
 * produces it (Dwell's registry, prom-client): one function, so a change of names or of access
 * (Dwell asks for its admin token as a bearer token) is one edit here.
 */

export interface HistogramReading {
  /** Cumulative counts by upper bound (seconds), +Inf last. */
  buckets: Array<[number, number]>;
  count: number;
  sum: number;
}

/** The histogram names tried, in order: the first that has a series for the route is used. */
const LATENCY_NAMES = ['dwell_http_request_duration_seconds', 'http_request_duration_seconds'];

export async function fetchMetrics(baseUrl: string, token?: string): Promise<string> {
  const res = await fetch(baseUrl + '/metrics', {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text.slice(0, 200)}`);
  return text;
}

const labelsOf = (s: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]] = m[2];
  return out;
};

/** The latency histogram of one route (summed over any other labels, e.g. status), or null. */
export function routeHistogram(text: string, route: string): HistogramReading | null {
  for (const name of LATENCY_NAMES) {
    const byLe = new Map<number, number>();
    let count = 0, sum = 0, seen = false;
    for (const line of text.split('\n')) {
      if (!line.startsWith(name + '_')) continue;
      const m = /^(\w+?)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
      if (!m) continue;
      const labels = labelsOf(m[2] ?? '');
      if ((labels.route ?? labels.path) !== route) continue;
      const v = Number(m[3]);
      if (m[1] === name + '_bucket') {
        const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
        byLe.set(le, (byLe.get(le) ?? 0) + v);
        seen = true;
      } else if (m[1] === name + '_count') count += v;
      else if (m[1] === name + '_sum') sum += v;
    }
    if (seen) return { buckets: [...byLe].sort((a, b) => a[0] - b[0]), count, sum };
  }
  return null;
}

/** A gauge's value (first series), or NaN. */
export function gaugeValue(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+(\\S+)`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** What happened between two readings: requests, and the share over `boundS` (must be a bucket bound). */
export function between(a: HistogramReading | null, b: HistogramReading | null, boundS: number): { count: number; over: number; share: number; meanMs: number } {
  if (!b) return { count: 0, over: 0, share: NaN, meanMs: NaN };
  const at = (h: HistogramReading | null) => h?.buckets.find(([le]) => Math.abs(le - boundS) < 1e-9)?.[1] ?? 0;
  if (!b.buckets.some(([le]) => Math.abs(le - boundS) < 1e-9)) throw new Error(`the histogram has no bucket at ${boundS} s`);
  const count = b.count - (a?.count ?? 0);
  const within = at(b) - at(a);
  const over = count - within;
  return { count, over, share: count > 0 ? over / count : NaN, meanMs: count > 0 ? ((b.sum - (a?.sum ?? 0)) / count) * 1000 : NaN };
}

/** A labelled gauge or counter's series as label value → value, e.g. Dwell's tasks per worker. */
export function seriesByLabel(text: string, name: string, label: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{')) continue;
    const m = /^\w+\{([^}]*)\}\s+(\S+)/.exec(line);
    const key = m ? labelsOf(m[1])[label] : undefined;
    if (m && key !== undefined) out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}
