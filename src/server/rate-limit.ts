/**
 * Per-app token buckets: `rate` requests a second on average, bursts up to one second's worth.
 * A rate of 0 turns limiting off.
 */
import { DwellError } from '../errors.js';
import { monotonicMs } from '../time/wall.js';

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly rate: number) {}

  take(appKey: string, now = monotonicMs()): void {
    if (this.rate <= 0) return;
    let b = this.buckets.get(appKey);
    if (!b) this.buckets.set(appKey, (b = { tokens: this.rate, at: now }));
    b.tokens = Math.min(this.rate, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
    if (b.tokens < 1) {
      const wait = Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
      throw new DwellError('rate_limited', `more than ${this.rate} requests a second for this app`, undefined, wait);
    }
    b.tokens -= 1;
  }
}
