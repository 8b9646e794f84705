/**
 * Node b of the embedded contract (embedded.test.ts): a worker thread opening the same data
 * directory with the production classes (embedded-ops.ts), as a detection or delivery worker
 * does, answering one named operation per message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openOps, type OpName } from './embedded-ops.js';

const ops = openOps(workerData.dir as string);
parentPort!.on('message', async ({ id, op, args }: { id: number; op: OpName | 'close'; args: unknown[] }) => {
  try {
    const value = await (ops[op] as (...a: unknown[]) => Promise<unknown>)(...args);
    parentPort!.postMessage({ id, value });
  } catch (err) {
    const e = err as { code?: string; name?: string; message?: string };
    parentPort!.postMessage({ id, error: { code: e.code, name: e.name, message: e.message } });
  }
});
parentPort!.postMessage({ ready: true });
