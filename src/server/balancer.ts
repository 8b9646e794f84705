/**
 * Which detection worker takes the next task (issue 21): the least busy, ties taken in turn.
 *
 * Piscina's own balancer also picks the least busy worker but breaks ties by the workers' order,
 * and at part load ties are the rule (every worker idle): the first worker took some 80 % of the
 * detections at 300 req/s on two workers, so it allocated, collected and promoted four times as
 * much as the second, whose code and caches stayed cold for the bursts that reached it. Starting
 * the search after the worker chosen last spreads the ties evenly at no cost to the busy case.
 */
/** What Piscina's balancer option is shown of a worker and a task (its own types are not exported). */
interface WorkerView { id: number; currentUsage: number; isRunningAbortableTask: boolean }
type Pick = <W extends WorkerView>(task: { isAbortable: boolean }, workers: W[]) => W | null;

export interface Balancer {
  pick: Pick;
  /** Tasks handed to each worker so far, by its thread id. */
  handed(): Array<[number, number]>;
}

/** `maxPerWorker`: a worker with that many tasks takes no more (the pool queues the task). */
export function leastBusyInTurn(maxPerWorker: number): Balancer {
  let turn = 0;
  const counts = new Map<number, number>();
  const pick: Pick = (task, workers) => {
    const n = workers.length;
    let best: (typeof workers)[number] | null = null;
    let least = maxPerWorker;
    for (let k = 0; k < n; k++) {
      const w = workers[(turn + k) % n];
      if (w.isRunningAbortableTask || (task.isAbortable && w.currentUsage > 0)) continue;
      const used = w.currentUsage;
      if (used < least) {
        best = w;
        least = used;
        if (used === 0) break;
      }
    }
    if (best) {
      turn = (workers.indexOf(best) + 1) % n;
      counts.set(best.id, (counts.get(best.id) ?? 0) + 1);
    }
    return best;
  };
  return { pick, handed: () => [...counts] };
}
