/**
 * Closing a server is a list of steps that each release something (threads, listeners, stores,
 * connections). One that fails must not leave the ones after it open: every step runs, in order,
 * each failure is logged with its step's name, and the close then fails naming them all.
 */
import { log } from '../log.js';

export type CloseStep = readonly [name: string, close: () => unknown];

export async function closeAll(what: string, steps: readonly CloseStep[]): Promise<void> {
  const failed: Array<{ step: string; error: unknown }> = [];
  for (const [step, close] of steps) {
    try {
      await close();
    } catch (error) {
      log.error(`${what}: a step of closing failed; the others still run`, { step, error: String((error as Error)?.message ?? error) });
      failed.push({ step, error });
    }
  }
  if (failed.length) {
    throw new AggregateError(failed.map((f) => f.error), `${what}: closing failed at ${failed.map((f) => f.step).join(', ')}`);
  }
}
