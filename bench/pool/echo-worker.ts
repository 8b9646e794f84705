/** The task of bench/pool-handoff: nothing, so that what is measured is the hand-off alone. */
export default function echo(task: { n: number }): number {
  return task.n;
}
