/** The task of bench/pool-handoff: nothing, so that what is measured is the hand-off alone. */
export default function echo(task: { n: number; items?: unknown[] }): number {
  return task.items ? task.items.length : task.n;
}
