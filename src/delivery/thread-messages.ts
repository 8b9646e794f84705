/** Messages between the delivery service (service.ts) and its thread (workers/delivery.ts). Metrics travel as batches so a busy worker posts a few a second. */
export type ToWorker = { type: 'wake' } | { type: 'stop' };
export type FromWorker =
  | { type: 'metrics'; counters: Array<[name: string, help: string, labels: Record<string, string>, by: number]>; observations: Array<[name: string, help: string, labels: Record<string, string>, values: number[]]> }
  | { type: 'started' }
  | { type: 'stopped' };
