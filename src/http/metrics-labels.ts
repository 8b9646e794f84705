/**
 * Keeps every metric's series bounded: each label of a metric takes at most `max` distinct
 * values; later new ones are counted under OTHER. Routes and statuses stay far below the cap,
 * app keys (contract §6: the labels name apps) are the set that grows with customers, and a bug
 * that put a raw URL or a user id in a label would otherwise grow the scrape without end.
 */
export type Labels = Record<string, string>;

export const OTHER = '_other';
export const MAX_VALUES_PER_LABEL = 100;

export class LabelGuard {
  private readonly seen = new Map<string, Set<string>>();

  constructor(private readonly max = MAX_VALUES_PER_LABEL) {}

  /** The labels to record under: `labels` itself unless a value would pass the cap. */
  bound(labels: Labels): Labels {
    let out: Labels | null = null;
    for (const name in labels) {
      const value = String(labels[name]);
      let values = this.seen.get(name);
      if (!values) this.seen.set(name, (values = new Set()));
      if (values.has(value)) continue;
      if (values.size < this.max) {
        values.add(value);
        continue;
      }
      out ??= { ...labels };
      out[name] = OTHER;
    }
    return out ?? labels;
  }
}
