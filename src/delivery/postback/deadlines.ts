/**
 * Deadlines that all have the same length and so expire in the order they were added: kept in
 * insertion order (a Map), with one timer armed for the oldest. Adding and removing cost O(1);
 * a send needs no timer of its own.
 */
export class Deadlines<T> {
  private readonly live = new Map<T, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number, private readonly expire: (t: T) => void, private readonly now = () => performance.now()) {}

  add(t: T): void {
    this.live.set(t, this.now() + this.ms);
    if (!this.timer) this.arm();
  }

  remove(t: T): void {
    this.live.delete(t);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.live.clear();
  }

  private arm(): void {
    const first = this.live.values().next();
    if (first.done) {
      this.timer = undefined;
      return;
    }
    this.timer = setTimeout(() => this.sweep(), Math.max(0, first.value - this.now()) + 1);
  }

  private sweep(): void {
    const now = this.now();
    for (const [t, at] of this.live) {
      if (at > now) break;
      this.live.delete(t);
      this.expire(t);
    }
    this.arm();
  }
}
