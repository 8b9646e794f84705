/** Test support: polls `probe` until it answers something truthy, or fails naming what it waited for. */
import { monotonicMs } from '../time/wall.js';
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000, everyMs = 50): Promise<T> {
  const end = monotonicMs() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (monotonicMs() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
